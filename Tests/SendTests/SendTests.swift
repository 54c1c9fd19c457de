import Foundation
import Testing
import TestSupport

/// Writes the sandbox's config file (mode 600) for a server on 127.0.0.1.
@discardableResult

func certificates() throws -> TestCertificates {
    try TestCertificates.shared.get()
}

@Suite struct SendTests {
    /// A file whose name is not UTF-8 (Latin-1, from an old archive) given to `--attach`
    /// is attached, its bytes intact, not "no such file": as the option's next word and
    /// written `--attach=FILE`.
    @Test(arguments: ["--attach ", "--attach="]) func aFileNamedInLatin1IsAttached(option: String) throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let script = "file=\"$(printf '%s/caf\\351.txt' \"$1\")\"; printf 'Bonjour\\n' > \"$file\"; "
            + "exec \"$0\" send --to joe@example.com --body hi \(option)\"$file\""
        let result = try run("/bin/sh", ["-c", script, mailtoRouteBinary, sandbox.root.path], environment: sandbox.environment)
        #expect(result.status == 0, "\(result)")
        let view = try pythonView(of: try #require(server.messages.first))
        let parts = try #require(view["parts"] as? [[String: Any]])
        // "Bonjour\n", whole; named as GLib shows such a name (the byte as U+FFFD).
        #expect(parts.last?["sha256"] as? String == "8dc2a6966f1be1644ec6b1f7223f47e53de5ad05e1c976736d948e7977a13dd3", "\(parts)")
        #expect(parts.last?["filename"] as? String == "caf\u{FFFD}.txt", "\(parts)")
    }

    /// A body that is not UTF-8 (a Latin-1 file) is an error that says so (65), not a
    /// message sent with U+FFFD in it.
    @Test func aBodyFileThatIsNotUTF8IsRefused() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let body = try sandbox.write(Data([0x6E, 0x61, 0xEF, 0x76, 0x65, 0x0A]), to: "latin1.txt")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body-file", body.path], in: sandbox)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("is not UTF-8 text"), "\(result)")
        #expect(server.messages.isEmpty)
    }

    /// Run where the user's locale is German, Turkish or Persian (rule 10: the wire never
    /// follows the locale): every check below is the same as in English, and Python's
    /// `email` finds an English `Date`, an ASCII header block and no defect.
    @Test(arguments: wireLocales)
    func plainMessageArrivesAsAskedAndBccStaysInTheEnvelope(_ locale: String) throws {
        try requireLocale(locale)
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let subject = "Grüße aus Köln – " + String(repeating: "long subject words ", count: 6)
        let result = try run(mailtoRouteBinary,
            ["send", "mailto:joe@example.com?In-Reply-To=%3Cparent@example.com%3E", "--cc", "ann@example.net",
             "--bcc", "hidden@example.org", "--subject", subject, "--body", "Hello Joe,\nsee you.\n", "--json"],
            environment: inLocale(locale, sandbox.environment))
        #expect(result.status == 0, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["path"] as? String == "direct")
        #expect(report["result"] as? String == "sent")
        #expect(report["server"] as? String == "127.0.0.1:\(server.port)")
        #expect((report["reply"] as? String)?.hasPrefix("250 2.0.0 Ok: queued") == true)
        #expect(report["accepted"] as? [String] == ["joe@example.com", "ann@example.net", "hidden@example.org"])

        let message = try #require(server.messages.first)
        let envelope = try server.envelope(of: message)
        #expect(envelope["mail_from"] as? String == "jane@example.org")
        #expect(envelope["rcpt_tos"] as? [String] == ["joe@example.com", "ann@example.net", "hidden@example.org"])
        let view = try pythonView(of: message)
        let headers = try #require(view["headers"] as? [String: String])
        #expect(headers["Subject"] == subject)
        #expect(headers["From"] == "Jane Doe <jane@example.org>")
        #expect(headers["To"] == "joe@example.com")
        #expect(headers["Cc"] == "ann@example.net")
        #expect(headers["Bcc"] == nil)
        #expect(headers["In-Reply-To"] == "<parent@example.com>")
        #expect(headers["Message-ID"] == report["messageId"] as? String)
        #expect(headers["Date"] != nil && headers["MIME-Version"] == "1.0")
        #expect(!(try String(contentsOf: message, encoding: .utf8)).contains("hidden"))
        let parts = try #require(view["parts"] as? [[String: Any]])
        #expect(parts.first?["text"] as? String == "Hello Joe,\r\nsee you.\r\n")
        #expect(view["defects"] as? [String] == [])
        #expect(wireProblems(in: view) == [], "\(locale)")
        #expect(view["date"] is String, "\(locale): \(headers["Date"] ?? "no Date")")
        #expect((view["longestLine"] as? Int ?? 999) <= 78)
        #expect(view["bareLF"] as? Bool == false)
    }

    /// An international domain is one A-label in every locale (rule 10): under Turkish, GLib's
    /// own lower-casing made `Iö` a dotless `ıö` and dropped the dot of `İ`. The expected
    /// A-labels are Python's `idna` codec's (`'Iö.example'.encode('idna')`), which no locale
    /// touches.
    @Test(arguments: wireLocales + ["C.UTF-8"])
    func anInternationalDomainIsTheSameALabelInEveryLocale(_ locale: String) throws {
        try requireLocale(locale)
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try run(mailtoRouteBinary,
            ["send", "--to", "joe@Iö.example", "--to", "İlker <ilker@İSTANBUL-bücher.example>", "--subject", "Hi", "--body", "x"],
            environment: inLocale(locale, sandbox.environment))
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        #expect(try server.envelope(of: message)["rcpt_tos"] as? [String]
            == ["joe@xn--i-1ga.example", "ilker@xn--istanbul-bcher-psb274f.example"], "\(locale)")
        let view = try pythonView(of: message)
        #expect(view["defects"] as? [String] == [])
    }

    @Test func htmlAndAttachmentsArriveByteIdenticalOverSTARTTLSWithAuth() throws {
        let certificates = try certificates()
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.starttls, certificate: certificates.server, auth: ("jane", "s3cret-pw"))
        try writeAccount(sandbox, port: server.port, security: "starttls", user: "jane", password: "s3cret-pw",
                         caFile: certificates.caFile)
        let binary = Data((0..<200_000).map { _ in UInt8.random(in: 0...255) })
        let binaryURL = try sandbox.write("", to: "files/data.bin")
        try binary.write(to: binaryURL)
        let textURL = try sandbox.write("Zeile eins\nZeile zwei\n", to: "files/Übersicht März 2024 – final version.txt")
        let html = "<html><body><h1>Hi</h1><p>Grüße &amp; <b>more</b></p></body></html>"
        let result = try mailtoRoute(
            ["send", "--to", "joe@example.com", "--subject", "Report", "--body", html, "--html",
             "--attach", binaryURL.path, "--attach", textURL.path], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("accepted: joe@example.com"))
        let message = try #require(server.messages.first)
        let envelope = try server.envelope(of: message)
        #expect(envelope["tls"] as? Bool == true)
        #expect(envelope["auth"] != nil && !(envelope["auth"] is NSNull))
        let view = try pythonView(of: message)
        let parts = try #require(view["parts"] as? [[String: Any]])
        #expect(parts.map { $0["type"] as? String } == [
            "multipart/mixed", "multipart/alternative", "text/plain", "text/html", "application/octet-stream", "text/plain",
        ])
        #expect(parts[2]["text"] as? String == "Hi\r\nGrüße & more")
        #expect(parts[3]["text"] as? String == html)
        #expect(parts[4]["filename"] as? String == "data.bin")
        #expect(parts[4]["sha256"] as? String == sha256(binary))
        #expect(parts[5]["filename"] as? String == "Übersicht März 2024 – final version.txt")
        #expect(parts[5]["sha256"] as? String == sha256(try Data(contentsOf: textURL)))
        #expect(view["defects"] as? [String] == [])
        #expect((view["longestLine"] as? Int ?? 999) <= 78)
    }

    /// TLS and AUTH where the locale is German, Turkish or Persian: a Turkish locale's
    /// dotless i must not touch `AUTH PLAIN` or `LOGIN`, nor any SMTP command, and the
    /// message arrives with nothing of the locale in it (rule 10).
    @Test(arguments: wireLocales)
    func implicitTLSWithAuthDelivers(_ locale: String) throws {
        try requireLocale(locale)
        let certificates = try certificates()
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.tls, certificate: certificates.server, auth: ("jane", "pw"))
        try writeAccount(sandbox, port: server.port, security: "tls", user: "jane", password: "pw", caFile: certificates.caFile)
        let result = try run(mailtoRouteBinary, ["send", "--to", "joe@example.com", "--subject", "Hi", "--body", "x"],
                             environment: inLocale(locale, sandbox.environment))
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        #expect(server.messages.count == 1)
        #expect(try server.envelope(of: message)["tls"] as? Bool == true)
        let view = try pythonView(of: message)
        #expect(wireProblems(in: view) == [], "\(locale)")
        #expect(view["date"] is String, "\(locale)")
    }

    /// A send's start-up is most of its time: GIO and GObject are opened only for what needs
    /// them (CGIO/shim.h), and a direct send never does. The dynamic loader's own log
    /// (LD_DEBUG=files) names every library the process loaded, linked or opened.
    @Test func directSendNeverLoadsGIO() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox,
                                     extraEnvironment: ["LD_DEBUG": "files"])
        #expect(result.status == 0, "\(result)")
        #expect(server.messages.count == 1)
        #expect(result.stderr.contains("file=libcurl.so.4"), "the loader's log is missing")
        #expect(!result.stderr.contains("libgio-2.0"))
        #expect(!result.stderr.contains("libgobject-2.0"))
    }

    /// libsecret (with libgcrypt under it) is opened only when a password is looked up in
    /// the keyring (CGIO/secret.h): the same account with `password=` never loads it.
    @Test func libsecretIsLoadedOnlyWhenThePasswordComesFromTheKeyring() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, auth: ("jane", "from-keyring"))
        let secrets = try FakeSecretService(items: [(["host": "127.0.0.1", "service": "smtp", "user": "jane"], "from-keyring")])
        let environment = ["LD_DEBUG": "files", "DBUS_SESSION_BUS_ADDRESS": secrets.address]
        let send = ["send", "--to", "joe@example.com", "--body", "x"]
        try writeAccount(sandbox, port: server.port, security: "none", user: "jane")
        let fromKeyring = try mailtoRoute(send, in: sandbox, extraEnvironment: environment)
        #expect(fromKeyring.status == 0, "\(fromKeyring)")
        #expect(fromKeyring.stderr.contains("file=libsecret-1.so.0"), "the loader's log is missing")
        try writeAccount(sandbox, port: server.port, security: "none", user: "jane", password: "from-keyring")
        let inline = try mailtoRoute(send, in: sandbox, extraEnvironment: environment)
        #expect(inline.status == 0, "\(inline)")
        #expect(inline.stderr.contains("file=libcurl.so.4"), "the loader's log is missing")
        #expect(!inline.stderr.contains("libsecret"))
        #expect(server.messages.count == 2)
    }

    @Test func refusedRecipientIsNamedWhileTheOthersGetTheMessage() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, refuse: ["nobody@example.com"])
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(
            ["send", "--to", "joe@example.com", "--to", "nobody@example.com", "--subject", "Plans", "--body", "x", "--json"], in: sandbox)
        // Not a plain success: the refused recipient's copy is a draft.
        #expect(result.status == 2, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["accepted"] as? [String] == ["joe@example.com"])
        let refused = try #require(report["refused"] as? [[String: String]])
        #expect(refused.count == 1)
        #expect(refused.first?["address"] == "nobody@example.com")
        #expect(refused.first?["reply"]?.hasPrefix("550 5.1.1") == true)
        let message = try #require(server.messages.first)
        #expect(try server.envelope(of: message)["rcpt_tos"] as? [String] == ["joe@example.com"])
        let draft = try #require(report["draft"] as? String)
        #expect(try sandbox.header("To", of: URL(fileURLWithPath: draft)) == "nobody@example.com")
        #expect(try sandbox.header("Subject", of: URL(fileURLWithPath: draft)) == "Plans")
        #expect((report["warnings"] as? [String])?.contains { $0.contains("draft addressed to nobody@example.com") } == true)
    }

    @Test func everyRecipientRefusedIsAPermanentFailure() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, refuse: ["nobody@example.com"])
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(["send", "--to", "nobody@example.com", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 1, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "failed")
        let error = try #require(report["error"] as? [String: String])
        #expect(error["kind"] == "permanent")
        #expect(error["message"]?.contains("550 5.1.1") == true)
        #expect(server.messages.isEmpty)
    }

    /// A 4xx reply leaves the message in the outbox (75); a 5xx fails it (1), kept as a draft.
    @Test(arguments: [("451 4.3.0 Try again later", "transient", Int32(75)), ("552 5.3.4 Message too big", "permanent", Int32(1))])
    func replyToTheMessageDecidesTransientOrPermanent(_ reply: String, _ kind: String, _ status: Int32) throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, dataReply: reply)
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == status, "\(result)")
        let report = try jsonObject(result.stdout)
        let error = try #require(report["error"] as? [String: String])
        #expect(error["kind"] == kind)
        #expect(error["message"]?.contains(reply) == true)
        #expect(report["reply"] as? String == reply)
    }

    @Test func serverWithoutSTARTTLSIsRefusedWhenStarttlsIsRequired() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, auth: ("jane", "pw"))
        try writeAccount(sandbox, port: server.port, security: "starttls", user: "jane", password: "pw")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("does not offer STARTTLS"))
        #expect(server.messages.isEmpty)
    }

    @Test func wrongPasswordIsAConfigurationError() throws {
        let certificates = try certificates()
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.tls, certificate: certificates.server, auth: ("jane", "right"))
        try writeAccount(sandbox, port: server.port, security: "tls", user: "jane", password: "wrong-pw-123",
                         caFile: certificates.caFile)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        let error = try #require(try jsonObject(result.stdout)["error"] as? [String: String])
        #expect(error["kind"] == "configuration")
        #expect(error["message"]?.contains("refused the user name or password") == true)
        #expect(!result.stdout.contains("wrong-pw-123") && !result.stderr.contains("wrong-pw-123"))
        #expect(server.messages.isEmpty)
    }

    @Test func certificateFromAnUnknownCAIsRefused() throws {
        let certificates = try certificates()
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.tls, certificate: certificates.server)
        try writeAccount(sandbox, port: server.port, security: "tls")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("not trusted"))
        #expect(server.messages.isEmpty)
    }

    @Test func expiredCertificateIsRefused() throws {
        let certificates = try certificates()
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.starttls, certificate: certificates.expired)
        try writeAccount(sandbox, port: server.port, security: "starttls", caFile: certificates.caFile)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("expired"))
        #expect(server.messages.isEmpty)
    }

    @Test func plainTextToARemoteHostIsRefusedBeforeConnecting() throws {
        let sandbox = try Sandbox()
        try writeAccount(sandbox, port: 25, security: "none", host: "smtp.example.invalid")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("plain text"))
    }

    @Test func closedPortIsATransientFailure() throws {
        let sandbox = try Sandbox()
        let (port, descriptor) = try unlistenedPort()
        defer { close(descriptor) }
        try writeAccount(sandbox, port: port, security: "none")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 75, "\(result)")
        let report = try jsonObject(result.stdout)
        let error = try #require(report["error"] as? [String: String])
        #expect(error["kind"] == "transient")
        #expect(report["result"] as? String == "queued")
        let listing = try mailtoRoute(["outbox", "list", "--json"], in: sandbox)
        #expect(listing.stdout.contains(try #require(report["outboxId"] as? String)))
    }

    @Test func serverThatNeverAnswersTimesOutAsTransient() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.silent)
        let config = try writeAccount(sandbox, port: server.port, security: "none")
        try (String(contentsOf: config, encoding: .utf8) + "timeout=1\n").write(to: config, atomically: false, encoding: .utf8)
        // A send that never gave up is killed at the harness's patience, and fails here.
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 75, "\(result)")
        let error = try #require(try jsonObject(result.stdout)["error"] as? [String: String])
        #expect(error["kind"] == "transient")
        #expect(error["message"]?.contains("timed out") == true)
    }

    @Test func lineBreakInSubjectIsRefusedAsBadInput() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(
            ["send", "--to", "joe@example.com", "--subject", "Hi\r\nBcc: evil@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 65, "\(result)")
        #expect(server.messages.isEmpty)
    }

    @Test func largeMessageShowsAProgressBarOnATerminalOnly() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let big = try sandbox.write("", to: "files/big.bin")
        try Data(repeating: 0x5A, count: 3_000_000).write(to: big)
        let command = [mailtoRouteBinary, "send", "--to", "joe@example.com", "--body", "x", "--attach", big.path]
        // script(1) gives the command a terminal; its transcript is what a person would see.
        let quoted = command.map { "'\($0)'" }.joined(separator: " ")
        let onTerminal = try run("/usr/bin/script", ["-qec", quoted, "/dev/null"], environment: sandbox.environment)
        #expect(onTerminal.status == 0, "\(onTerminal)")
        #expect(onTerminal.stdout.contains("sending ["))
        #expect(onTerminal.stdout.contains("4.1 of 4.1 MB"))
        let piped = try mailtoRoute(Array(command.dropFirst()), in: sandbox)
        #expect(piped.status == 0, "\(piped)")
        #expect(!piped.stderr.contains("sending ["))
        #expect(server.messages.count == 2)
    }

    @Test func bodyFromStandardInput() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "-"], in: sandbox,
                                     stdin: Data("from a pipe: ünïcode\n".utf8))
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
        #expect(parts.first?["text"] as? String == "from a pipe: ünïcode\r\n")
    }
}
