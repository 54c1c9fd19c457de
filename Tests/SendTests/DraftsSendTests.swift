import Foundation
import Outbox
import Testing
import TestSupport

/// Saves a draft as the router writes one (OutgoingMessage's draft form: Bcc kept, and no
/// From when there was no account), folded Bcc and all; returns its id.
func saveDraft(_ sandbox: Sandbox, messageId: String = "<draft-1@localhost>", bccName: String = "Bcc") throws -> String {
    let text = "Date: Sun, 29 Nov 2026 14:00:00 +0000\r\nTo: Joe <joe@example.com>\r\nCc: ann@example.net\r\n"
        + "\(bccName): hidden@example.org,\r\n \"Second, Hidden\" <hidden2@example.org>\r\nSubject: Draft\r\n"
        + "Message-ID: \(messageId)\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + "Content-Transfer-Encoding: 7bit\r\n\r\nHello Joe,\r\nsee you.\r\n"
    let drafts = Drafts(directory: sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path)
    return try drafts.save(Array(text.utf8)).id
}

func draftExists(_ sandbox: Sandbox, _ id: String) -> Bool {
    FileManager.default.fileExists(atPath: sandbox.dataHome.appendingPathComponent("mailto-route/drafts/\(id).eml").path)
}

@Suite struct DraftsSendTests {
    /// Also as a hand-edited draft may write it: `BCC :`, RFC 822's obsolete form.
    @Test(arguments: ["Bcc", "BCC "])
    func aDraftGoesToEveryRecipientIncludingBccWithoutItsBccFieldAndIsRemoved(bccName: String) throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let id = try saveDraft(sandbox, bccName: bccName)
        let result = try mailtoRoute(["drafts", "send", id], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("\(id): sent via 127.0.0.1:\(server.port): 250 2.0.0 Ok: queued as TEST1"))
        #expect(result.stdout.contains("the draft was removed"))
        #expect(!draftExists(sandbox, id))

        let message = try #require(server.messages.first)
        let envelope = try server.envelope(of: message)
        #expect(envelope["mail_from"] as? String == "jane@example.org")
        #expect(envelope["rcpt_tos"] as? [String] == ["joe@example.com", "ann@example.net", "hidden@example.org", "hidden2@example.org"])
        let view = try pythonView(of: message)
        let headers = try #require(view["headers"] as? [String: String])
        #expect(headers["Bcc"] == nil)
        #expect(headers["From"] == "Jane Doe <jane@example.org>")
        #expect(headers["To"] == "Joe <joe@example.com>")
        // A draft is not sent until now: a fresh Message-ID from the account's domain and a
        // fresh Date, never the saving time and @localhost.
        #expect(headers["Message-ID"]?.hasSuffix("@example.org>") == true, "\(headers)")
        #expect(headers["Message-ID"] != "<draft-1@localhost>")
        #expect(headers["Date"] != "Sun, 29 Nov 2026 14:00:00 +0000")
        #expect(!(try String(contentsOf: message, encoding: .utf8)).contains("hidden"))
        #expect((view["parts"] as? [[String: Any]])?.first?["text"] as? String == "Hello Joe,\r\nsee you.\r\n")
        #expect(view["defects"] as? [String] == [])
    }

    @Test func aDraftTheServerCannotTakeNowMovesToTheOutbox() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        let port = server.port
        server.stop()
        try writeAccount(sandbox, port: port, security: "none")
        let id = try saveDraft(sandbox)
        let result = try mailtoRoute(["drafts", "send", id, "--json"], in: sandbox)
        #expect(result.status == 75, "\(result)")
        let report = try jsonObject(result.stdout)
        #expect(report["result"] as? String == "queued")
        #expect(report["draftRemoved"] as? Bool == true)
        #expect(!draftExists(sandbox, id))
        let box = sandboxOutbox(sandbox)
        let entry = try #require(try box.list().first)
        #expect(entry.id == report["outboxId"] as? String)
        #expect(entry.recipients == ["joe@example.com", "ann@example.net", "hidden@example.org", "hidden2@example.org"])
        #expect(entry.messageId == report["messageId"] as? String)
        #expect(entry.messageId?.hasSuffix("@example.org>") == true)
        #expect(!String(decoding: try box.message(entry.id), as: UTF8.self).contains("Bcc"))
    }

    @Test func aRefusedDraftOrOneWithoutAnAccountStaysADraft() throws {
        let sandbox = try Sandbox()
        let id = try saveDraft(sandbox)
        let noAccount = try mailtoRoute(["drafts", "send", id], in: sandbox)
        #expect(noAccount.status == 78, "\(noAccount)")
        #expect(noAccount.stderr.contains("the draft stays in"))
        #expect(draftExists(sandbox, id))

        let server = try SMTPTestServer(.plain, dataReply: "554 5.7.1 rejected as spam")
        try writeAccount(sandbox, port: server.port, security: "none")
        let refused = try mailtoRoute(["drafts", "send", id], in: sandbox)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("554 5.7.1 rejected as spam"))
        #expect(refused.stderr.contains("it stays a draft"))
        #expect(draftExists(sandbox, id))
        #expect(try sandboxOutbox(sandbox).list().isEmpty)
    }

    /// An `.eml` copied into the drafts by hand is sent as the builder would send it:
    /// its 10 MB header line folded, no Date or Message-ID added, its own trace fields
    /// dropped; a NUL is refused with a clear error and the draft stays.
    @Test func aHandCopiedDraftIsMendedAsTheBuilderWouldSendIt() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try writeAccount(sandbox, port: server.port, security: "none")
        let drafts = Drafts(directory: sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path)
        let words = String(repeating: "word ", count: 2_000_000)
        let text = "Return-Path: <bounce@elsewhere.example>\nReceived: from mx by mx; Sun, 29 Nov 2026\n"
            + "To: joe@example.com\nSubject: Copied\nX-Long: \(words)\n\nHello\n"
        let id = try drafts.save(Array(text.utf8)).id
        let result = try mailtoRoute(["drafts", "send", id, "--json"], in: sandbox)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try jsonObject(result.stdout)
        #expect(report["path"] as? String == "direct")
        #expect(report["result"] as? String == "sent")
        #expect(report["server"] as? String == "127.0.0.1:\(server.port)")
        #expect((report["reply"] as? String)?.hasPrefix("250") == true)
        let message = try #require(server.messages.first)
        let view = try pythonView(of: message)
        let headers = try #require(view["headers"] as? [String: String])
        #expect(headers["Date"] != nil)
        #expect(headers["Message-ID"] == report["messageId"] as? String)
        #expect(headers["From"] == "Jane Doe <jane@example.org>")
        #expect((view["longestLine"] as? Int ?? .max) <= 998)
        #expect(view["defects"] as? [String] == [])
        let raw = try String(contentsOf: message, encoding: .utf8)
        #expect(!raw.contains("Return-Path: <bounce") && !raw.contains("Received: from mx"))
        #expect((report["warnings"] as? [String])?.contains { $0.contains("Return-Path, Received") } == true)

        let withNUL = try drafts.save(Array("To: joe@example.com\nSubject: x\n\nnul \u{0} here\n".utf8)).id
        let refused = try mailtoRoute(["drafts", "send", withNUL], in: sandbox)
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr.contains("NUL byte"), "\(refused)")
        #expect(draftExists(sandbox, withNUL))
        #expect(server.messages.count == 1)
    }
}
