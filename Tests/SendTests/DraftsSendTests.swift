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
        #expect(headers["Message-ID"] == "<draft-1@localhost>")
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
        #expect(entry.messageId == "<draft-1@localhost>")
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
}
