import Foundation
import Outbox
import Testing
import TestSupport

@Suite struct DraftsCommandTests {
    func drafts(in sandbox: Sandbox) -> Drafts {
        Drafts(directory: sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path)
    }

    @Test func listShowsSavedDraftsAndDropDeletesOne() throws {
        let sandbox = try Sandbox()
        #expect(try mailtoRoute(["drafts", "list"], in: sandbox).stdout == "No drafts.\n")

        let store = drafts(in: sandbox)
        let draft = try store.save(message("Minutes").bytes)
        let list = try mailtoRoute(["drafts", "list"], in: sandbox)
        #expect(list.status == 0)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("ID ") && lines[0].contains("SUBJECT"))
        #expect(lines[1].hasPrefix(draft.id) && lines[1].contains("joe@example.org") && lines[1].hasSuffix("Minutes"))
        #expect(lines[2] == "In \(store.directory)")

        let json = try #require(try JSONSerialization.jsonObject(with: Data(try mailtoRoute(["drafts", "list", "--json"], in: sandbox).stdout.utf8)) as? [[String: Any]])
        #expect(json.first?["path"] as? String == draft.path)
        #expect(json.first?["subject"] as? String == "Minutes")

        let drop = try mailtoRoute(["drafts", "drop", draft.id], in: sandbox)
        #expect(drop.status == 0)
        #expect(drop.stdout == "\(draft.id): draft deleted.\n")
        #expect(try store.list().isEmpty)
        #expect(try mailtoRoute(["drafts", "drop", draft.id], in: sandbox).status == 65)
        #expect(try mailtoRoute(["drafts", "drop"], in: sandbox).status == 64)
        #expect(try mailtoRoute(["drafts", "frobnicate"], in: sandbox).status == 64)
    }
}
