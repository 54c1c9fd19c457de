import Foundation
@testable import Outbox
import Testing
import TestSupport

@Suite struct DraftsTests {
    func drafts(_ sandbox: Sandbox) -> Drafts {
        Drafts(directory: sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path)
    }

    @Test func aSavedDraftIsAPrivateEmlFileWithTheExactBytes() throws {
        let sandbox = try Sandbox()
        let drafts = drafts(sandbox)
        let bytes = sampleMessage(1).bytes
        let draft = try drafts.save(bytes)

        #expect(draft.path == drafts.directory + "/" + draft.id + ".eml")
        #expect(try permissions(drafts.directory) == 0o700)
        #expect(try permissions(draft.path) == 0o600)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: draft.path))) == bytes)
        #expect(try drafts.read(draft.id) == bytes)
        #expect(names(in: drafts.directory) == [draft.id + ".eml"])
    }

    @Test func listingReadsSubjectAndRecipientsFromTheHeaders() throws {
        let sandbox = try Sandbox()
        let drafts = drafts(sandbox)
        // `Cc :`: white space before the colon (RFC 822's obsolete syntax, a hand edit) is
        // still Cc, as `drafts send` reads it.
        let text = "Date: Sun, 29 Nov 2026 13:45:00 +0000\r\nTo: joe@example.org,\r\n ann@example.org\r\n"
            + "Cc : bob@example.org\r\nSubject: =?UTF-8?B?Q2Fmw6k=?= au lait\r\n\r\nSubject: not a header\r\n"
        let before = Timestamp.now()
        let first = try drafts.save(Array(text.utf8))
        let second = try drafts.save(sampleMessage(2).bytes)

        let listed = try drafts.list()
        #expect(listed.map(\.id) == [first.id, second.id])
        #expect(listed[0].subject == "Café au lait")
        #expect(listed[0].recipients == ["joe@example.org, ann@example.org", "bob@example.org"])
        #expect(listed[0].date == "Sun, 29 Nov 2026 13:45:00 +0000")
        #expect(listed[0].size == text.utf8.count)
        #expect(listed[1].subject == "message 2")
        // Saved between the two readings of the clock; a file's times come from the kernel's
        // coarse clock, which may be a tick behind the one Timestamp.now() reads.
        #expect(((before - 1)...Timestamp.now()).contains(listed[0].saved), "\(listed[0].saved), saved at \(before)")
    }

    @Test func dropDeletesOneDraftAndUnknownIdsAreInputErrors() throws {
        let sandbox = try Sandbox()
        let drafts = drafts(sandbox)
        let keep = try drafts.save(sampleMessage(0).bytes)
        let gone = try drafts.save(sampleMessage(1).bytes)
        try drafts.drop(gone.id)

        #expect(try drafts.list().map(\.id) == [keep.id])
        for id in [gone.id, "../outbox", ""] {
            do {
                try drafts.drop(id)
                Issue.record("dropped '\(id)'")
            } catch let error as OutboxError {
                #expect(error.kind == .input)
            }
            #expect(throws: OutboxError.self) { try drafts.read(id) }
        }
    }

    @Test func noDraftsDirectoryMeansNoDrafts() throws {
        let sandbox = try Sandbox()
        #expect(try drafts(sandbox).list().isEmpty)
    }
}
