import Foundation
import Testing
import TestSupport

/// The desktop service as the desktop uses it: a session bus of the test's own that
/// D-Bus activates mailto-route-desktop from the service files `register` installed
/// (in the sandbox's `$XDG_DATA_HOME/dbus-1/services`), its windows on the second test
/// desktop's display and accessibility bus; called as the command line, GLib's
/// launcher, xdg-desktop-portal and GNOME Shell's notifications call it. One after
/// another on that screen, beside the other sheet tests on theirs.
extension ServiceTests {
    @Suite(.serialized) struct Service {
        let sandbox: Sandbox
        let desktop: TestDesktop
        let bus: PrivateSessionBus
        /// The environment of the bus, hence of the service it starts, and of the clicks.
        let environment: [String: String]
        let serviceName = HeadlessServiceTests.serviceName

        init() throws {
            sandbox = try Sandbox()
            desktop = try TestDesktop.second.get()
            try shortenTheUndoHold(sandbox)
            var environment = desktop.environment(sandbox.environment)
            environment["AT_SPI_BUS_ADDRESS"] = desktop.accessibilityBusAddress
            // Gone two seconds after its last window: the tests see it leave and come back.
            environment["MAILTO_ROUTE_SERVICE_IDLE"] = "2"
            environment["MAILTO_ROUTE_HANDOFF"] = nil
            let register = try run(mailtoRouteBinary, ["register"], environment: environment)
            guard register.status == 0 else { throw TestSupportError("register: \(register)") }
            bus = try PrivateSessionBus(serviceDirectory: sandbox.dataHome.appendingPathComponent("dbus-1/services"),
                                        environment: environment)
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            self.environment = environment
        }

        func screenshot(_ name: String) -> String { serviceScreenshot(name) }

        func click(_ arguments: [String]) throws -> DesktopProgram {
            try DesktopProgram([mailtoRouteBinary] + arguments, environment: environment, directory: sandbox.root)
        }

        /// xdg-desktop-portal's call of the backend (Servers/portal-client.py).
        func compose(_ arguments: [String]) throws -> DesktopProgram {
            let client = packageRoot.appendingPathComponent("Tests/TestSupport/Servers/portal-client.py").path
            return try DesktopProgram(["/usr/bin/python3", client] + arguments, environment: environment, directory: sandbox.root)
        }

        /// An application's ComposeEmail (org.example.Editor, to joe@example.com, "Files")
        /// with two files, a.txt and b.txt, carried out with no window: the portal's response
        /// is expected to be 0. The two files' paths.
        func composeTwoFilesWithoutAWindow(request: String) throws -> [String] {
            let files = [try file("a.txt", "one\n"), try file("b.txt", "two\n")]
            let call = try compose(["--handle", "/org/freedesktop/portal/desktop/request/1_42/\(request)", "--app-id", "org.example.Editor",
                                    "--to", "joe@example.com", "--subject", "Files", "--attach", files[0], "--attach", files[1]])
            let result = call.finish(timeout: 30)
            #expect(result.status == 0, "\(result)")
            #expect(try jsonObject(result.stdout)["response"] as? Int == 0)
            return files
        }

        func gdbus(_ arguments: [String]) throws -> RunResult {
            try bus.gdbus(arguments, environment: environment)
        }

        var serviceIsRunning: Bool {
            bus.hasOwner(serviceName)
        }

        func waitForServiceToLeave(timeout: Double = 15) -> Bool {
            bus.waitUntilUnowned(serviceName, timeout: timeout)
        }

        func file(_ name: String, _ contents: String) throws -> String {
            try sandbox.write(contents, to: "files/\(name)").path
        }

        // MARK: - The Email portal

        /// An application's ComposeEmail with two files: the sheet opens (activated), names
        /// the application, shows both files ticked; Send delivers both, and the portal's
        /// response is 0.
        @Test func portalComposeWithTwoAttachmentsArrivesWithBoth() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let report = try file("report.pdf", "%PDF-1.4 quarterly\n")
            let photo = try file("photo.jpg", "JFIF not really\n")
            let call = try compose(["--handle", "/org/freedesktop/portal/desktop/request/1_42/t1", "--app-id",
                                    "org.gnome.Nautilus", "--to", "joe@example.com", "--subject", "Two files",
                                    "--body", "Both attached.", "--attach", report, "--attach", photo])
            let steps = try desktop.drive(["wait-sheet", "wait-label:org.gnome.Nautilus asks", "state:report.pdf", "state:photo.jpg",
                                           screenshot("portal-two-files"), "press:Send", "wait-gone"], timeout: 30)
            let named = steps.first { $0["step"] as? String == "wait-label" }
            #expect(named?["text"] as? String == "org.gnome.Nautilus asks to send this message.", "\(steps)")
            let ticked = steps.filter { $0["step"] as? String == "state" }
            #expect(ticked.count == 2)
            #expect(ticked.allSatisfy { $0["checked"] as? Bool == true }, "\(ticked)")
            let result = call.finish(timeout: 30)
            #expect(result.status == 0, "\(result)")
            #expect(try jsonObject(result.stdout)["response"] as? Int == 0)
            let message = try #require(server.messages.first)
            let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
            let attached = parts.filter { $0["disposition"] as? String == "attachment" }
            #expect(Set(attached.compactMap { $0["filename"] as? String }) == ["report.pdf", "photo.jpg"])
            #expect(attached.first { $0["filename"] as? String == "report.pdf" }?["sha256"] as? String
                == sha256(Data("%PDF-1.4 quarterly\n".utf8)))
            // The outcome log says how the request came, and from which application.
            let log = sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log")
            try waitUntil("the send is logged") { sandbox.contents(log)?.contains("\"sent\"") == true }
            #expect(sandbox.contents(log)?.contains("\"arrival\": \"Email portal\", \"requestedBy\": \"org.gnome.Nautilus\"") == true,
                    "\(sandbox.contents(log) ?? "")")
        }

        /// Debian's real xdg-desktop-portal on the service's bus, its backends as on Debian 12
        /// with the package installed: mailto-route's two `.portal` files beside the GTK
        /// backend's gtk.portal, on GNOME (which gtk.portal's UseIn names), with no step of
        /// root's. An application's ComposeEmail with two files as descriptors reaches the
        /// sheet with both ticked, the application hears nothing until the person sends, and
        /// Send delivers both.
        @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/libexec/xdg-desktop-portal"),
                       "xdg-desktop-portal is not installed"))
        func realPortalFrontendReachesTheSheetWithTheApplicationsFiles() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let portals = sandbox.root.appendingPathComponent("portals")
            try FileManager.default.createDirectory(at: portals, withIntermediateDirectories: true)
            for name in ["mailtoroute.portal", "00-mailtoroute.portal"] {
                try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("data/\(name)"),
                                                 to: portals.appendingPathComponent(name))
            }
            // As xdg-desktop-portal-gtk 1.14 installs it (its desktop answers to GNOME).
            try """
                [portal]
                DBusName=org.freedesktop.impl.portal.desktop.gtk
                Interfaces=org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.AppChooser;org.freedesktop.impl.portal.Print;org.freedesktop.impl.portal.Notification;org.freedesktop.impl.portal.Inhibit;org.freedesktop.impl.portal.Access;org.freedesktop.impl.portal.Account;org.freedesktop.impl.portal.Email;org.freedesktop.impl.portal.DynamicLauncher;org.freedesktop.impl.portal.Lockdown;org.freedesktop.impl.portal.Settings;
                UseIn=gnome

                """.write(to: portals.appendingPathComponent("gtk.portal"), atomically: false, encoding: .utf8)
            var portalEnvironment = environment
            portalEnvironment["XDG_DESKTOP_PORTAL_DIR"] = portals.path
            portalEnvironment["XDG_CURRENT_DESKTOP"] = "GNOME"
            let frontend = try ServerProcess(["/usr/libexec/xdg-desktop-portal", "--replace"], environment: portalEnvironment,
                                             output: sandbox.root.appendingPathComponent("xdg-desktop-portal.log").path)
            defer { frontend.stop() }
            try waitUntil("xdg-desktop-portal has its name on the bus") { bus.hasOwner("org.freedesktop.portal.Desktop") }
            let first = try file("minutes.txt", "the minutes\n")
            let second = try file("slides.odp", "slides, not really\n")
            let client = packageRoot.appendingPathComponent("Tests/TestSupport/Servers/email-portal-client.py").path
            let application = try DesktopProgram(["/usr/bin/python3", client, "--to", "joe@example.com", "--subject",
                                                  "From the portal", "--attach", first, "--attach", second],
                                                 environment: environment, directory: sandbox.root)
            let steps = try desktop.drive(["wait-sheet", "state:minutes.txt", "state:slides.odp", screenshot("real-portal")],
                                          timeout: 30)
            let ticked = steps.filter { $0["step"] as? String == "state" }
            #expect(ticked.count == 2 && ticked.allSatisfy { $0["checked"] as? Bool == true }, "\(ticked)")
            #expect(application.isRunning, "the application was answered before the person acted")
            _ = try desktop.drive(["press:Send", "wait-gone"], timeout: 30)
            let result = application.finish(timeout: 30)
            #expect(result.status == 0, "\(result)")
            #expect(try jsonObject(result.stdout)["response"] as? Int == 0)
            let message = try #require(server.messages.first)
            let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
            let names = parts.filter { $0["disposition"] as? String == "attachment" }.compactMap { $0["filename"] as? String }
            #expect(Set(names) == ["minutes.txt", "slides.odp"])
        }

        /// With policy=handoff the portal's files go to the mail program on its own command
        /// line (a recording Thunderbird's `-compose`), and the response is 0.
        @Test func portalComposeWithHandoffPolicyReachesThunderbirdWithBothFiles() throws {
            try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
            _ = try sandbox.write("[route]\npolicy=handoff\nhandler=thunderbird.desktop\n", to: "home/.config/mailto-route/config")
            let files = try composeTwoFilesWithoutAWindow(request: "t2")
            let argv = try #require(sandbox.recordedArgv("thunderbird", timeout: 10))
            #expect(argv.count == 2 && argv.first == "-compose", "\(argv)")
            // As Thunderbird reads its -compose argument (ThunderbirdJudge): both files.
            #expect(try ThunderbirdCompose(reading: argv.last ?? "").attachments == files, "\(argv)")
        }

        /// Someone who never chose mailto-route, whose Email portal it serves because the
        /// package made it the backend (xdg-desktop-portal 1.16): the desktop's mailto:
        /// handler is Thunderbird, so Thunderbird gets the message and both files, as from
        /// the GTK backend, with no window of mailto-route's, even with an account and
        /// policy=ask (a sheet would have held the response until someone acted).
        @Test func portalComposeOfSomeoneWhoChoseAnotherProgramReachesItWithBothFiles() throws {
            try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
            _ = try writeAccount(sandbox, port: 9, security: "none")
            let chosen = try run("/usr/bin/gio", ["mime", "x-scheme-handler/mailto", "thunderbird.desktop"], environment: environment)
            try #require(chosen.status == 0, "\(chosen)")
            let files = try composeTwoFilesWithoutAWindow(request: "t3")
            let argv = try #require(sandbox.recordedArgv("thunderbird", timeout: 10))
            #expect(try ThunderbirdCompose(reading: argv.last ?? "").attachments == files, "\(argv)")
        }

        /// No account: an application's first request through the Email portal asks once;
        /// "Always" on Thunderbird is kept for that application (`[portal APPID]`), so its
        /// next request goes straight there with its file; another application is asked.
        @Test func portalChooserAlwaysIsKeptPerApplication() throws {
            try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
            let report = try file("report.txt", "figures\n")
            let first = try compose(["--handle", "/org/freedesktop/portal/desktop/request/1_42/c1", "--app-id", "org.example.Editor",
                                     "--to", "joe@example.com", "--subject", "Figures", "--attach", report])
            let steps = try desktop.drive([
                "wait-chooser", screenshot("portal-chooser"), "pick:Open in Thunderbird", "press:Always", "wait-chooser-gone",
            ], timeout: 30)
            let offered = try #require(steps.first { $0["step"] as? String == "wait-chooser" }?["ways"] as? [String])
            #expect(offered == ["Open in Thunderbird", "Set up sending…", "Copy Address"], "\(offered)")
            let result = first.finish(timeout: 30)
            #expect(try jsonObject(result.stdout)["response"] as? Int == 0, "\(result)")
            let argv = try #require(sandbox.recordedArgv("thunderbird", timeout: 10))
            #expect(try ThunderbirdCompose(reading: argv.last ?? "").attachments == [report], "\(argv)")
            let config = (try? String(contentsOf: sandbox.configHome.appendingPathComponent("mailto-route/config"), encoding: .utf8)) ?? ""
            #expect(config.contains("[portal org.example.Editor]\nalways=thunderbird.desktop"), "\(config)")
            #expect(!config.contains("[route]"), "links are not what was chosen for: \(config)")

            // The same application again: straight to Thunderbird, no window.
            try FileManager.default.removeItem(at: sandbox.recordsDirectory.appendingPathComponent("thunderbird.argv"))
            let second = try compose(["--handle", "/org/freedesktop/portal/desktop/request/1_42/c2", "--app-id", "org.example.Editor",
                                      "--to", "ann@example.com", "--subject", "Again", "--attach", report])
            let secondResult = second.finish(timeout: 30)
            #expect(try jsonObject(secondResult.stdout)["response"] as? Int == 0, "\(secondResult)")
            #expect(sandbox.recordedArgv("thunderbird", timeout: 10) != nil)

            // Another application is asked; Cancel is the portal's response 1.
            let other = try compose(["--handle", "/org/freedesktop/portal/desktop/request/1_42/c3", "--app-id", "org.example.Other",
                                     "--to", "joe@example.com", "--subject", "Other"])
            _ = try desktop.drive(["wait-chooser", "press:Cancel", "wait-chooser-gone"], timeout: 30)
            let otherResult = other.finish(timeout: 30)
            #expect(try jsonObject(otherResult.stdout)["response"] as? Int == 1, "\(otherResult)")
        }

        /// `Request.Close` from the frontend (the application withdrew its request) closes
        /// the untouched sheet: response 1, nothing sent, nothing saved.
        @Test func requestCloseClosesItsSheet() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let handle = "/org/freedesktop/portal/desktop/request/1_42/t3"
            let call = try compose(["--handle", handle, "--to", "joe@example.com"])
            _ = try desktop.drive(["wait-sheet"], timeout: 30)
            let close = try gdbus(["--dest", "org.freedesktop.impl.portal.desktop.mailtoroute", "--object-path", handle,
                                   "--method", "org.freedesktop.impl.portal.Request.Close"])
            #expect(close.status == 0, "\(close)")
            _ = try desktop.drive(["wait-gone"], timeout: 20)
            let result = call.finish(timeout: 20)
            #expect(result.status == 0, "\(result)")
            #expect(try jsonObject(result.stdout)["response"] as? Int == 1)
            #expect(server.messages.isEmpty)
            #expect(sandbox.drafts.isEmpty)
        }

        /// `Request.Close` while the chooser asks (no account): it goes as Cancel, the
        /// portal's response 1, nothing kept.
        @Test func requestCloseClosesItsChooser() throws {
            try sandbox.installHandler("thunderbird.desktop", name: "Thunderbird", program: "thunderbird")
            let handle = "/org/freedesktop/portal/desktop/request/1_42/t9"
            let call = try compose(["--handle", handle, "--app-id", "org.example.Editor", "--to", "joe@example.com"])
            _ = try desktop.drive(["wait-chooser"], timeout: 30)
            let close = try gdbus(["--dest", "org.freedesktop.impl.portal.desktop.mailtoroute", "--object-path", handle,
                                   "--method", "org.freedesktop.impl.portal.Request.Close"])
            #expect(close.status == 0, "\(close)")
            _ = try desktop.drive(["wait-chooser-gone"], timeout: 20)
            let result = call.finish(timeout: 20)
            #expect(try jsonObject(result.stdout)["response"] as? Int == 1, "\(result)")
            #expect(sandbox.neverLaunched("thunderbird"))
        }

        // MARK: - Clicks

        /// A click while the service runs opens its sheet in the service; Cancel ends the
        /// click with the report (cancelled, 4) printed by the command line.
        @Test func clickOpensTheSheetInTheRunningServiceAndCancelIsReported() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let first = try click(["open", "mailto:joe@example.com?subject=First", "--json"])
            _ = try desktop.drive(["wait-sheet"], timeout: 30)
            #expect(serviceIsRunning)
            // check sees it running, on the same bus.
            let check = try run(mailtoRouteBinary, ["check", "--json"], environment: environment, timeout: 30)
            let facts = try jsonObject(check.stdout)["desktopService"] as? [String: Any]
            #expect(facts?["running"] as? Bool == true, "\(check)")
            let second = try click(["open", "mailto:ann@example.com?subject=Second", "--json"])
            let steps = try desktop.drive(["wait-sheets:2", screenshot("two-sheets")], timeout: 20)
            #expect(steps.first?["count"] as? Int == 2, "\(steps)")
            _ = try desktop.drive(["press:Cancel", "wait-sheets:1", "press:Cancel", "wait-gone"], timeout: 20)
            for program in [first, second] {
                let result = program.finish()
                #expect(result.status == 4, "\(result)")
                #expect(try jsonObject(result.stdout)["result"] as? String == "cancelled")
            }
            #expect(waitForServiceToLeave(), "the service quits when idle")
        }

        /// The click's startup id goes to the service with the request, and from there to
        /// the sheet's window (gtk_window_set_startup_id), so that the desktop brings it to
        /// the front instead of saying it "is ready": on X11 its client leader carries it as
        /// _NET_STARTUP_ID, and the window the click's time as _NET_WM_USER_TIME.
        @Test func theClicksStartupIDReachesTheServicesWindow() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            var clickEnvironment = environment
            let id = "mailto-route-test-\(getpid())_TIME4242"
            clickEnvironment["DESKTOP_STARTUP_ID"] = id
            let program = try DesktopProgram([mailtoRouteBinary, "open", "mailto:zed@example.com", "--json"],
                                             environment: clickEnvironment, directory: sandbox.root)
            _ = try desktop.drive(["wait-sheet"], timeout: 30)
            #expect(serviceIsRunning, "the sheet is the service's")
            let window = try xWindow(titled: "Message to zed@example.com")
            #expect(try xProperties(window).contains("_NET_WM_USER_TIME(CARDINAL) = 4242"))
            let startup = try startupID(of: window)
            #expect(startup.contains("\"\(id)\""), "\(startup)")
            _ = try desktop.drive(["press:Cancel", "wait-gone"], timeout: 20)
            #expect(program.finish().status == 4)
        }

        /// Nothing waits forever: the session bus itself goes away while a click waits for
        /// its sheet in the service; the click ends with a failure that says the text is
        /// kept, instead of waiting on a bus that can never answer.
        @Test func clickEndsWhenTheSessionBusGoesAway() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            let program = try click(["open", "mailto:joe@example.com?subject=Bus%20gone", "--json"])
            _ = try desktop.drive(["wait-sheet"], timeout: 30)
            bus.stop()
            let result = program.finish(timeout: 15)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("the session bus went away before the sheet ended"), "\(result)")
            // The service went with its bus (or its sheet is cancelled here): the screen is
            // left empty for the next test.
            if (try? desktop.drive(["wait-gone"], timeout: 5)) == nil {
                _ = try? desktop.drive(["press:Cancel", "wait-gone"], timeout: 10)
            }
            #expect(server.messages.isEmpty)
        }

        /// GLib's launch of the D-Bus activatable entry (`org.freedesktop.Application.Open`)
        /// with the `mailto:///ADDRESS` form: with policy=handoff it reaches the mail
        /// program as the plain `mailto:ADDRESS`.
        @Test func openOverTheBusWithTripleSlashHandsOffThePlainAddress() throws {
            try sandbox.installHandler("recorder.desktop", name: "Recorder", program: "recorder")
            _ = try sandbox.write("[route]\npolicy=handoff\nhandler=recorder.desktop\n", to: "home/.config/mailto-route/config")
            let reply = try gdbus(["--dest", "io.github.mailto_route.MailtoRoute", "--object-path",
                                   "/io/github/mailto_route/MailtoRoute", "--method", "org.freedesktop.Application.Open",
                                   "['mailto:///joe@example.com?subject=Hi']", "{}"])
            #expect(reply.status == 0, "\(reply)")
            let argv = sandbox.recordedArgv("recorder", timeout: 15)
            #expect(argv == ["mailto:joe@example.com?subject=Hi"], "\(String(describing: argv))")
        }

        /// GLib's launch of the D-Bus activatable entry with no account: the service asks
        /// once (the same plan as the command line's click), and the program chosen "Just
        /// this once" gets the link; nothing is written to the config file.
        @Test func openOverTheBusWithNoAccountAsksOnceInTheService() throws {
            try sandbox.installHandler("recorder.desktop", name: "Recorder", program: "recorder")
            let reply = try gdbus(["--dest", "io.github.mailto_route.MailtoRoute", "--object-path",
                                   "/io/github/mailto_route/MailtoRoute", "--method", "org.freedesktop.Application.Open",
                                   "['mailto:joe@example.com?subject=Bus']", "{}"])
            #expect(reply.status == 0, "\(reply)")
            _ = try desktop.drive([
                "wait-chooser", screenshot("open-chooser"), "pick:Open in Recorder", "press:Just this once", "wait-chooser-gone",
            ], timeout: 30)
            let argv = sandbox.recordedArgv("recorder", timeout: 15)
            #expect(argv == ["mailto:joe@example.com?subject=Bus"], "\(String(describing: argv))")
            let config = sandbox.configHome.appendingPathComponent("mailto-route/config").path
            #expect(!((try? String(contentsOfFile: config, encoding: .utf8)) ?? "").contains("always="))
        }

        /// Rule 8 through the service: GLib's Open of a link with attach= lists the file
        /// unticked in the service's sheet; a click through xdg-email hands the service its
        /// judgement with the request: the file of xdg-email's --attach ticked, the one the
        /// URL names beside it unticked, and Send sends only the first.
        @Test func serviceKeepsEachRequestsAttachmentTrust() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            try sandbox.installXDGEmailHook()
            let secret = try file("id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
            let report = try file("report.txt", "figures\n")
            let reply = try gdbus(["--dest", "io.github.mailto_route.MailtoRoute", "--object-path",
                                   "/io/github/mailto_route/MailtoRoute", "--method", "org.freedesktop.Application.Open",
                                   "['mailto:joe@example.com?attach=\(secret)']", "{}"])
            #expect(reply.status == 0, "\(reply)")
            let opened = try desktop.drive(["wait-sheet", "state:\(secret)", screenshot("open-unticked"), "press:Cancel", "wait-gone"],
                                           timeout: 30)
            #expect(opened.first { $0["step"] as? String == "state" }?["checked"] as? Bool == false, "\(opened)")

            var withHook = environment
            withHook["PATH"] = sandbox.binDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            let program = try DesktopProgram(["/usr/bin/xdg-email", "--attach", report, "mailto:ann@example.com?attach=\(secret)"],
                                             environment: withHook, directory: sandbox.root)
            let steps = try desktop.drive(["wait-sheet", "state:report.txt", "state:\(secret)", screenshot("xdg-email-both"),
                                           "press:Send", "wait-window:Send without id_rsa?", "press:Send Without It", "wait-gone"], timeout: 30)
            let states = steps.filter { $0["step"] as? String == "state" }.map { $0["checked"] as? Bool }
            #expect(states == [true, false], "\(steps)")
            #expect(program.finish().status == 0)
            let message = try #require(server.messages.first)
            let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
            let attached = parts.filter { $0["disposition"] as? String == "attachment" }
            #expect(attached.map { $0["filename"] as? String } == ["report.txt"], "\(parts)")
            #expect(try !String(contentsOf: message, encoding: .utf8).contains("OPENSSH"))
        }

        // MARK: - Notifications and their actions

        /// Queued from the sheet: the notification (GNOME's org.gtk.Notifications) has
        /// Retry now for that outbox entry. Clicked after the service exited, it activates
        /// the service and sends the message once; a second click sends nothing.
        @Test func retryNowSendsTheQueuedMessageOnceAlsoAfterTheServiceExited() throws {
            let down = try SMTPTestServer(.plain)
            let port = down.port
            down.stop()
            try writeAccount(sandbox, port: port, security: "none")
            let notifications = try GtkNotificationServer(environment: environment)
            let program = try click(["open", "mailto:joe@example.com?subject=Later&body=x", "--json"])
            _ = try desktop.drive(["wait-sheet", "press:Send", "wait-gone"], timeout: 40)
            let result = program.finish()
            #expect(result.status == 75, "\(result)")
            let outboxID = try #require(try jsonObject(result.stdout)["outboxId"] as? String)
            let shown = try #require(notifications.lastShown())
            #expect(shown["app"] as? String == "io.github.mailto_route.MailtoRoute")
            let buttons = try #require(shown["buttons"] as? [[String: Any]])
            #expect(buttons.first?["label"] as? String == "Retry now", "\(shown)")
            #expect(buttons.first?["action"] as? String == "app.retry-outbox")
            #expect((buttons.first?["target"] as? String)?.contains(outboxID) == true, "\(buttons)")
            // The service owns the outbox while the message waits; it is ended here (a
            // logout, a crash), so that the button has to start it again.
            try stopService()

            let server = try SMTPTestServer(.plain, port: port)
            let activate = ["--dest", "io.github.mailto_route.MailtoRoute", "--object-path", "/io/github/mailto_route/MailtoRoute",
                            "--method", "org.freedesktop.Application.ActivateAction", "retry-outbox", "[<'\(outboxID)'>]", "{}"]
            #expect(try gdbus(activate).status == 0)
            try waitUntil("the message arrives") { !server.messages.isEmpty }
            #expect(server.messages.count == 1)
            #expect(try gdbus(activate).status == 0)
            // Once the service has quit (nothing queued), both clicks are handled: counted then.
            #expect(waitForServiceToLeave(timeout: 20), "the service quits once nothing is queued")
            #expect(server.messages.count == 1, "a second click sends nothing")
            #expect(try outboxEntries().isEmpty)
        }

        /// Ends the running service (SIGTERM, or `signal`, to the process that owns its
        /// name) and waits until it has left the bus.
        func stopService(signal: Int32 = SIGTERM) throws {
            ProcessReference(try servicePID()).signal(signal)
            #expect(waitForServiceToLeave(), "the service left after signal \(signal)")
        }

        /// The process that owns the service's name now
        /// (`org.freedesktop.DBus.GetConnectionUnixProcessID`).
        func servicePID() throws -> pid_t {
            try bus.processID(of: "io.github.mailto_route.MailtoRoute")
        }

        /// "Send now" (the button of a queued message, as "Retry now" is) on a plain
        /// org.freedesktop.Notifications server (no GNOME Shell, so the button reaches only a
        /// running service), pressed after the service's idle time: the service is still there,
        /// owning the held message, and sends it once. Held until tomorrow morning, the message
        /// has no other way out than the button.
        @Test func sendNowWorksOnAFreedesktopNotificationServerAfterTheIdleTime() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            // Pressed 6 s after it is shown: three times the service's idle time here.
            let notifications = try ScriptedNotificationServer(on: bus, answers: ["button:Send now"], delay: 6)
            let program = try click(["open", "mailto:joe@example.com?subject=Retry&body=x", "--json"])
            _ = try desktop.drive(["wait-sheet", "open-menu:Send Later", "choose:Tomorrow Morning", "wait-gone"], timeout: 40)
            let result = program.finish()
            #expect(result.status == 75, "\(result)")
            #expect(try waitForAnEmptyOutbox(seconds: 60), "sent by the button: \(notifications.calls)")
            let pressed = notifications.notifications.first { $0.actions.contains("Send now") }
            #expect(pressed != nil, "\(notifications.calls)")
            // Counted once the sender has quit: nothing is left to send it again.
            #expect(waitForServiceToLeave(timeout: 20), "the service quits once nothing is queued")
            #expect(server.messages.count == 1, "sent once")
        }

        /// Saved from the sheet: the notification has Open for that draft, which opens the
        /// `.eml` with the desktop's program for messages (a recording one here); a draft
        /// that is gone since opens nothing.
        @Test func openOnASavedDraftOpensItWithTheMailProgram() throws {
            let server = try SMTPTestServer(.plain)
            try writeAccount(sandbox, port: server.port, security: "none")
            // The system's MIME database (shared-mime-info), as every desktop has it: GIO
            // reads a draft's type, message/rfc822, from its name there.
            try FileManager.default.createSymbolicLink(at: sandbox.systemDataDir.appendingPathComponent("mime"),
                                                       withDestinationURL: URL(fileURLWithPath: "/usr/share/mime"))
            try sandbox.installHandler("reader.desktop", name: "Reader", program: "reader", mimeTypes: "message/rfc822;")
            try sandbox.write("[Default Applications]\nmessage/rfc822=reader.desktop\n", to: "home/.config/mimeapps.list")
            let notifications = try GtkNotificationServer(environment: environment)
            let program = try click(["open", "mailto:joe@example.com?subject=Keep&body=for%20later", "--json"])
            _ = try desktop.drive(["wait-sheet", "menu:Save Draft", "wait-gone"], timeout: 30)
            let result = program.finish()
            #expect(result.status == 3, "\(result)")
            let draft = try #require(try jsonObject(result.stdout)["draft"] as? String)
            let shown = try #require(notifications.lastShown())
            let button = try #require((shown["buttons"] as? [[String: Any]])?.first)
            #expect(button["label"] as? String == "Open", "\(shown)")
            #expect(button["action"] as? String == "app.open-draft")
            let activate = ["--dest", "io.github.mailto_route.MailtoRoute", "--object-path", "/io/github/mailto_route/MailtoRoute",
                            "--method", "org.freedesktop.Application.ActivateAction", "open-draft", "[<'\(draft)'>]", "{}"]
            #expect(try gdbus(activate).status == 0)
            let argv = try #require(sandbox.recordedArgv("reader", timeout: 10))
            #expect(argv.count == 1 && argv[0].hasSuffix(URL(fileURLWithPath: draft).lastPathComponent), "\(argv)")
            try FileManager.default.removeItem(atPath: draft)
            try FileManager.default.removeItem(at: sandbox.recordsDirectory.appendingPathComponent("reader.argv"))
            #expect(try gdbus(activate).status == 0)
            #expect(sandbox.recordedArgv("reader", timeout: 2) == nil, "a draft that is gone opens nothing")
        }

        /// Waits up to `seconds` for the outbox to be empty: the service has sent what it held
        /// and recorded it (an entry goes once its message is sent); whether it came to that.
        func waitForAnEmptyOutbox(seconds: Double = patience) throws -> Bool {
            (try? waitUntil("the outbox is empty", timeout: seconds) { try outboxEntries().isEmpty }) != nil
        }

        func outboxEntries() throws -> [String] {
            let outbox = sandbox.stateHome.appendingPathComponent("mailto-route/outbox")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []
            return names.filter { !$0.hasPrefix(".") && $0 != "failed" }
        }

    }
}

/// Servers/gtk-notifications.py on the service's bus, recording what it is asked.
final class GtkNotificationServer {
    private let process: ServerProcess
    private let directory: URL

    init(environment: [String: String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gtk-notifications-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ready = directory.appendingPathComponent("ready")
        process = try ServerProcess([
            "/usr/bin/python3", packageRoot.appendingPathComponent("Tests/TestSupport/Servers/gtk-notifications.py").path,
            "--record", directory.appendingPathComponent("calls.jsonl").path, "--ready", ready.path,
        ], environment: ["DBUS_SESSION_BUS_ADDRESS": environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""],
           output: directory.appendingPathComponent("log").path)
        try process.waitForReady(ready.path, name: "gtk-notifications.py")
    }

    func calls() throws -> [[String: Any]] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("calls.jsonl"), encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try jsonObject(String($0)) }
    }

    /// The last notification shown (AddNotification), waited for: the service shows it
    /// moments after what the test saw (a window gone, a message sent).
    func lastShown(timeout: Double = patience) -> [String: Any]? {
        func shown() -> [String: Any]? { (try? calls())?.last { $0["method"] as? String == "AddNotification" } }
        try? waitUntil("a notification is shown", timeout: timeout) { shown() != nil }
        return shown()
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The group of the desktop service's tests (`Service`), on the second test desktop.
@Suite(.serialized) enum ServiceTests {}

/// The sheet driver's step that leaves a screenshot of the test desktop in
/// `.build/sheet-screenshots/service-NAME.png`.
func serviceScreenshot(_ name: String) -> String {
    let directory = packageRoot.appendingPathComponent(".build/sheet-screenshots")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return "shot:" + directory.appendingPathComponent("service-\(name).png").path
}
