import Foundation
import Testing
import TestSupport

/// "Set up sending" in the sheet, as a person does it: a sheet with no account offers it;
/// its window takes the address and the password, the server is found (SRV records of a
/// mail domain on loopback, `MailDomain`), tested and kept (the password in a real
/// gnome-keyring-daemon, `TestKeyring`), and the same sheet then sends. With nothing found,
/// the window says so and shows the server's form. Part of `SheetTests` (one screen, one
/// test at a time).
extension SheetTests {
    /// The sheet's program in `domain` (its names, its DNS server, the test CA), its
    /// session bus the keyring's (AT-SPI through the desktop's accessibility bus).
    func startInDomain(_ domain: MailDomain, keyring: TestKeyring, _ arguments: [String]) throws -> DesktopProgram {
        var environment = domain.environment(environment)
        environment["DBUS_SESSION_BUS_ADDRESS"] = keyring.address
        environment["AT_SPI_BUS_ADDRESS"] = desktop.accessibilityBusAddress
        return try DesktopProgram(domain.wrapped(mailtoRouteBinary) + arguments, environment: environment, directory: sandbox.root)
    }

    /// No file of the sandbox holds `secret`.
    func expectNoFileHolds(_ secret: String) {
        let files = FileManager.default.enumerator(at: sandbox.root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            #expect(!String(decoding: data, as: UTF8.self).contains(secret), "\(file.path) holds the password")
        }
    }

    @Test func setUpSendingInTheSheetFindsTheServerAndTheSheetSends() throws {
        let password = "pw-\(UUID().uuidString)"
        let name = "sheet.example.test"
        let domain = try MailDomain(name, srv: [("submissions", "mail.\(name)", 4650)], names: ["mail.\(name)"])
        let server = try SMTPTestServer(.tls, certificate: domain.certificate, auth: ("jane@\(name)", password),
                                        port: 4650, address: domain.address)
        let keyring = try TestKeyring()
        let program = try startInDomain(domain, keyring: keyring, ["compose", "mailto:joe@example.org?subject=Hello", "--json"])
        let steps = try desktop.drive([
            "wait-sheet", "wait-label:No mail account is set up", "state:Send", screenshot("setup-offer"),
            "press:Set Up Sending…", "wait-window:Set Up Sending",
            "type:Address:Jane Doe <jane@\(name)>", "type:Password:\(password)", screenshot("setup-form"),
            "key:Return", "wait-label:Sending is set up", "state:Send", screenshot("setup-done"),
            "type:Message:Sent from a sheet that set itself up.", "press:Send", "wait-gone",
        ], timeout: 30, watching: program)
        let states = steps.filter { $0["step"] as? String == "state" }
        #expect(states.first?["enabled"] as? Bool == false, "\(states)")
        #expect(states.last?["enabled"] as? Bool == true, "\(states)")
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        #expect(try jsonObject(result.stdout)["result"] as? String == "sent")
        let message = try #require(server.messages.first)
        let headers = try #require(try pythonView(of: message)["headers"] as? [String: String])
        #expect(headers["From"] == "Jane Doe <jane@\(name)>")
        #expect(headers["Subject"] == "Hello")
        #expect(try keyring.lookup(["host": "mail.\(name)", "service": "smtp", "user": "jane@\(name)"]) == password)
        let config = try String(contentsOf: sandbox.configHome.appendingPathComponent("mailto-route/config"), encoding: .utf8)
        #expect(config.contains("[account jane@\(name)]"))
        expectNoFileHolds(password)
    }

    @Test func setUpSendingWithNothingFoundShowsTheServerFormAndItWorks() throws {
        let password = "pw-\(UUID().uuidString)"
        let name = "hidden.example.test"
        let domain = try MailDomain(name, names: ["relay.\(name)"])
        let server = try SMTPTestServer(.tls, certificate: domain.certificate, auth: ("jane", password),
                                        port: 4650, address: domain.address)
        let keyring = try TestKeyring()
        let program = try startInDomain(domain, keyring: keyring, ["compose", "mailto:joe@example.org?subject=By%20hand", "--json"])
        let steps = try desktop.drive([
            "wait-sheet", "press:Set Up Sending…", "wait-window:Set Up Sending",
            "type:Address:jane@\(name)", "type:Password:\(password)", "press:Set Up",
            "wait-label:Could not find your mail server", screenshot("setup-not-found"),
            "type:Server:relay.\(name)", "type:Port:4650", "type:User Name:jane", screenshot("setup-manual"),
            "press:Set Up", "wait-label:Sending is set up", "press:Send", "wait-gone",
        ], timeout: 40, watching: program)
        let notFound = try #require(steps.first { $0["step"] as? String == "wait-label" })
        #expect((notFound["text"] as? String)?.contains("Could not find your mail server for \(name)") == true, "\(notFound)")
        let result = program.finish()
        #expect(result.status == 0, "\(result)")
        #expect(server.messages.count == 1)
        let config = try String(contentsOf: sandbox.configHome.appendingPathComponent("mailto-route/config"), encoding: .utf8)
        #expect(config.contains("host=relay.\(name)\nport=4650\nsecurity=tls\nuser=jane"), "\(config)")
        expectNoFileHolds(password)
    }
}

extension SheetTests {
    /// GNOME Online Accounts on the bus (a stand-in with no mail account): the setup offers
    /// it, and the button opens GNOME Settings' Online Accounts (a recording
    /// `gnome-control-center`).
    @Test func setUpSendingOffersGNOMEOnlineAccountsWhenItIsOnTheBus() throws {
        let keyring = try TestKeyring()
        let standIn = try GOAStandIn(on: keyring.bus, accounts: "{}")
        try sandbox.installRecorder("gnome-control-center")
        var environment = desktop.environment(sandbox.environment())
        environment["DBUS_SESSION_BUS_ADDRESS"] = keyring.address
        environment["AT_SPI_BUS_ADDRESS"] = desktop.accessibilityBusAddress
        let program = try DesktopProgram([mailtoRouteBinary, "compose", "mailto:joe@example.org", "--json"],
                                         environment: environment, directory: sandbox.root)
        _ = try desktop.drive([
            "wait-sheet", "press:Set Up Sending…", "wait-window:Set Up Sending", screenshot("setup-online-accounts"),
            "press:Use GNOME Online Accounts",
        ])
        #expect(sandbox.recordedArgv("gnome-control-center", timeout: 10) == ["online-accounts"])
        // The sheet's Cancel with the setup window open: both go, nothing sent.
        _ = try desktop.drive(["press:Cancel", "wait-gone"])
        let result = program.finish()
        #expect(result.status == 4, "\(result)")
        _ = standIn
    }
}
