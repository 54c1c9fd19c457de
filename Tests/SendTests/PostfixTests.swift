import Foundation
import Outbox
import Testing
import TestSupport

/// `send` against a real Postfix submission service (PostfixSubmissionServer): STARTTLS
/// required, AUTH through Dovecot, PIPELINING, SIZE, 8BITMIME and SMTPUTF8 offered as
/// Postfix offers them, delivery into a Maildir. What arrives is judged by Python's `email`
/// package; what Postfix did, by its own words (its replies, its mail log, the Received
/// line it writes: `with ESMTPSA` is TLS and a login, `UTF8SMTPSA` SMTPUTF8 as well).
@Suite struct PostfixTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.shared.get()
    }

    /// The sandbox's account for `server`: STARTTLS, the test CA, the login it takes.
    private func account(_ sandbox: Sandbox, _ server: PostfixSubmissionServer, password: String = "s3cret-pw") throws {
        try writeAccount(sandbox, port: server.port, security: "starttls", user: "jane", password: password,
                         caFile: certificates.caFile)
    }

    /// Nothing of the client's session can be delivered: smtpd's summaries of the sessions,
    /// the start-up probe's and the client's, once both are logged, have no DATA that
    /// succeeded (none, or `data=0/1`), so nothing was queued. Asked once the session has
    /// ended rather than after a while of no delivery.
    private func expectNothingQueued(by server: PostfixSubmissionServer) throws {
        let sessions = server.sessionSummaries(count: 2)
        try #require(sessions.count == 2, "the client's session did not end\n\(server.log)")
        #expect(sessions.allSatisfy { !$0.contains(" data=") || $0.contains(" data=0/") }, "\(sessions)")
        #expect(server.delivered.isEmpty)
    }

    private func randomFile(_ sandbox: Sandbox, _ name: String, size: Int) throws -> (url: URL, data: Data) {
        let data = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom")).read(upToCount: size) ?? Data()
        let url = try sandbox.write("", to: "files/\(name)")
        try data.write(to: url)
        return (url, data)
    }

    @Test func everyFieldAndA5MBAttachmentArriveByteIdenticalInTheMaildir() throws {
        let sandbox = try Sandbox()
        let server = try PostfixSubmissionServer(certificate: certificates.server)
        try account(sandbox, server)
        let binary = try randomFile(sandbox, "Bericht März.bin", size: 5_000_000)
        let notes = try sandbox.write("Zeile eins\nZeile zwei\n", to: "files/notes.txt")
        let subject = "Grüße aus Köln – " + String(repeating: "a subject long enough to fold ", count: 4)
        // A line that starts with a dot (doubled on the wire, undone by Postfix) and one
        // longer than a header line may be.
        let body = "Hallo Joe,\n.ein Punkt am Zeilenanfang\n" + String(repeating: "lang ", count: 40) + "\nTschüss\n"
        let link = "mailto:joe@example.com?In-Reply-To=%3Cparent@example.com%3E"
            + "&References=%3Croot@example.com%3E%20%3Cparent@example.com%3E&Keywords=plans,%20M%C3%A4rz"
        let result = try mailtoRoute(
            ["send", link, "--to", "Ann Ärger <ann@example.net>", "--cc", "cc@example.net", "--bcc", "hidden@example.org",
             "--subject", subject, "--body", body, "--attach", binary.url.path, "--attach", notes.path, "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)\n\(server.diagnostics)")
        let report = try jsonObject(result.stdout)
        let recipients = ["joe@example.com", "ann@example.net", "cc@example.net", "hidden@example.org"]
        #expect(report["accepted"] as? [String] == recipients)
        #expect((report["reply"] as? String)?.hasPrefix("250 2.0.0 Ok: queued as ") == true, "\(report)")

        // One copy per recipient, each the same bytes as submitted.
        let copies = server.delivered(count: 4)
        try #require(copies.count == 4, "\(server.log)")
        let submitted = try copies.map(PostfixSubmissionServer.submitted)
        #expect(Set(submitted).count == 1, "the copies differ")
        var deliveredTo: [String] = []
        for copy in copies {
            let text = String(decoding: try Data(contentsOf: copy), as: UTF8.self)
            #expect(text.contains(" with ESMTPSA id "), "not received over TLS with a login: \(text.prefix(600))")
            deliveredTo += text.split(separator: "\n").filter { $0.hasPrefix("Delivered-To: ") }.map { String($0.dropFirst(14)) }
        }
        #expect(Set(deliveredTo) == Set(recipients))

        let view = try pythonView(of: try #require(copies.first))
        #expect(view["defects"] as? [String] == [])
        let headers = try #require(view["headers"] as? [String: String])
        #expect(headers["Subject"] == subject)
        #expect(headers["From"] == "Jane Doe <jane@example.org>")
        #expect(headers["Bcc"] == nil)
        #expect(headers["In-Reply-To"] == "<parent@example.com>")
        #expect(headers["References"] == "<root@example.com> <parent@example.com>")
        #expect(headers["Keywords"] == "plans, März")
        #expect(headers["Message-ID"] == report["messageId"] as? String)
        #expect(headers["Date"] != nil && headers["MIME-Version"] == "1.0")
        let addresses = try #require(view["addresses"] as? [String: [[String: String]]])
        #expect(addresses["To"] == [["name": "", "address": "joe@example.com"], ["name": "Ann Ärger", "address": "ann@example.net"]])
        #expect(addresses["Cc"] == [["name": "", "address": "cc@example.net"]])
        #expect(!String(decoding: submitted[0], as: UTF8.self).contains("hidden@example.org"))
        let parts = try #require(view["parts"] as? [[String: Any]])
        #expect(parts.map { $0["type"] as? String } == ["multipart/mixed", "text/plain", "application/octet-stream", "text/plain"])
        // The Maildir keeps lines with LF, as Python gives them back.
        #expect(parts[1]["text"] as? String == body)
        #expect(parts[2]["filename"] as? String == "Bericht März.bin")
        #expect(parts[2]["size"] as? Int == 5_000_000)
        #expect(parts[2]["sha256"] as? String == sha256(binary.data))
        #expect(parts[3]["filename"] as? String == "notes.txt")
        #expect(parts[3]["sha256"] as? String == sha256(try Data(contentsOf: notes)))
    }

    /// A recipient Postfix puts off (450) gets the very message the others got, from the
    /// outbox: the same bytes and Message-ID, queued for them alone.
    @Test func aRecipientPutOffWith450IsQueuedWithTheBytesTheOthersGot() throws {
        let sandbox = try Sandbox()
        let server = try PostfixSubmissionServer(certificate: certificates.server, deferred: ["later@example.com"])
        try account(sandbox, server)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--to", "later@example.com", "--subject", "Plans",
                                      "--body", "Hi\n.dot\n", "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)\n\(server.diagnostics)")
        let report = try jsonObject(result.stdout)
        #expect(report["accepted"] as? [String] == ["joe@example.com"])
        let refused = try #require(report["refused"] as? [[String: String]])
        #expect(refused.first?["address"] == "later@example.com")
        #expect(refused.first?["reply"]?.hasPrefix("450 4.2.0 <later@example.com>") == true, "\(refused)")
        let outbox = Outbox(directory: sandbox.stateHome.appendingPathComponent("mailto-route/outbox").path)
        let entry = try #require(try outbox.list().first)
        #expect(entry.id == report["outboxId"] as? String)
        #expect(entry.recipients == ["later@example.com"])
        let copy = try #require(server.delivered(count: 1).first)
        let queued = [UInt8](try Data(contentsOf: URL(fileURLWithPath: outbox.messagePath(entry.id))))
        #expect(try PostfixSubmissionServer.submitted(copy) == queued)
    }

    /// A recipient Postfix refuses for good (550) has a draft addressed to them; the others
    /// have the message.
    @Test func aRecipientRefusedWith550GetsADraftAddressedToThem() throws {
        let sandbox = try Sandbox()
        let server = try PostfixSubmissionServer(certificate: certificates.server, refuse: ["nobody@example.com"])
        try account(sandbox, server)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--to", "nobody@example.com", "--subject", "Plans",
                                      "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 2, "\(result)\n\(server.diagnostics)")
        let report = try jsonObject(result.stdout)
        let refused = try #require(report["refused"] as? [[String: String]])
        #expect(refused.first?["reply"]?.hasPrefix("550 5.1.1 <nobody@example.com>: Recipient address rejected") == true, "\(refused)")
        let draft = URL(fileURLWithPath: try #require(report["draft"] as? String))
        #expect(try sandbox.header("To", of: draft) == "nobody@example.com")
        #expect(try sandbox.header("Subject", of: draft) == "Plans")
        let copies = server.delivered(count: 1)
        #expect(copies.count == 1)
        #expect(try String(contentsOf: try #require(copies.first), encoding: .utf8).contains("Delivered-To: joe@example.com\n"))
    }

    /// RFC 1870: the size is declared in MAIL FROM, so Postfix refuses a message over its
    /// limit before a byte of it is sent ("Message size exceeds fixed limit" is its answer
    /// to MAIL FROM; after the data it says "message file too big"). The error says the
    /// limit, and the message is kept as a draft, attachment and all.
    @Test func aMessageOverTheServersLimitIsRefusedBeforeItIsSentAndKeptAsADraft() throws {
        let sandbox = try Sandbox()
        let server = try PostfixSubmissionServer(certificate: certificates.server, sizeLimit: 2_000_000)
        try account(sandbox, server)
        let attachment = try randomFile(sandbox, "big.bin", size: 3_000_000)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--subject", "Big", "--body", "x",
                                      "--attach", attachment.url.path, "--json"], in: sandbox)
        #expect(result.status == 1, "\(result)\n\(server.diagnostics)")
        let report = try jsonObject(result.stdout)
        #expect(report["reply"] as? String == "552 5.3.4 Message size exceeds fixed limit")
        let error = try #require(report["error"] as? [String: String])
        #expect(error["kind"] == "permanent")
        #expect(error["message"]?.contains("takes messages up to 2 MB; this one is 4.1 MB") == true, "\(error)")
        #expect(server.logs("NOQUEUE: reject: MAIL from"), "\(server.log)")
        #expect(server.delivered.isEmpty)
        let draft = URL(fileURLWithPath: try #require(report["draft"] as? String))
        let parts = try #require(try pythonView(of: draft)["parts"] as? [[String: Any]])
        #expect(parts.last?["sha256"] as? String == sha256(attachment.data))
    }

    /// RFC 6531: an address whose local part is not ASCII goes with SMTPUTF8, which Postfix
    /// offers. The offer is learnt first with a NOOP, on the connection the message then
    /// takes.
    @Test func aNonASCIILocalPartIsSentWithSMTPUTF8() throws {
        let sandbox = try Sandbox()
        let server = try PostfixSubmissionServer(certificate: certificates.server)
        try account(sandbox, server)
        let result = try mailtoRoute(["send", "--to", "Jörg Müller <jörg@example.org>", "--to", "joe@example.com",
                                      "--subject", "Grüße", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 0, "\(result)\n\(server.diagnostics)")
        #expect(try jsonObject(result.stdout)["accepted"] as? [String] == ["jörg@example.org", "joe@example.com"])
        let copies = server.delivered(count: 2)
        try #require(copies.count == 2, "\(server.log)")
        let texts = try copies.map { try String(contentsOf: $0, encoding: .utf8) }
        #expect(texts.allSatisfy { $0.contains(" with UTF8SMTPSA id ") }, "\(texts.first?.prefix(600) ?? "")")
        #expect(texts.contains { $0.contains("Delivered-To: jörg@example.org\n") })
        let addresses = try #require(try pythonView(of: copies[0], utf8Headers: true)["addresses"] as? [String: [[String: String]]])
        #expect(addresses["To"] == [["name": "Jörg Müller", "address": "jörg@example.org"], ["name": "", "address": "joe@example.com"]])
        // smtpd's summary of the one connection: the NOOP and the message.
        #expect(server.logs("mail=1 rcpt=2 data=1 noop=1 quit=1"), "\(server.log)")
    }

    /// The test of the tests: a Postfix that refuses the login takes nothing.
    @Test func aLoginPostfixRefusesIsAConfigurationErrorAndNothingIsDelivered() throws {
        let sandbox = try Sandbox()
        let server = try PostfixSubmissionServer(certificate: certificates.server)
        try account(sandbox, server, password: "wrong-pw-123")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 78, "\(result)\n\(server.diagnostics)")
        let error = try #require(try jsonObject(result.stdout)["error"] as? [String: String])
        #expect(error["kind"] == "configuration")
        #expect(error["message"]?.contains("535 5.7.8") == true, "\(error)")
        #expect(!result.stdout.contains("wrong-pw-123") && !result.stderr.contains("wrong-pw-123"))
        try expectNothingQueued(by: server)
    }

    /// And one that offers no AUTH at all (its submission service open to its own network):
    /// libcurl would send without logging in; the account has a login, so nothing is sent,
    /// and the message is kept.
    @Test func aPostfixThatOffersNoLoginGetsNothingFromAnAccountWithOne() throws {
        let sandbox = try Sandbox()
        let server = try PostfixSubmissionServer(certificate: certificates.server, user: nil)
        try account(sandbox, server)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--subject", "Kept", "--body", "x", "--json"], in: sandbox)
        #expect(result.status == 78, "\(result)\n\(server.diagnostics)")
        let report = try jsonObject(result.stdout)
        let error = try #require(report["error"] as? [String: String])
        #expect(error["kind"] == "configuration")
        #expect(error["message"]?.contains("offers no login (AUTH)") == true, "\(error)")
        try expectNothingQueued(by: server)
        let draft = try #require(report["draft"] as? String, "\(report)")
        #expect(try String(contentsOfFile: draft, encoding: .utf8).contains("Subject: Kept"))
    }
}
