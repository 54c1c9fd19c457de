import Foundation
import Outbox
import Testing
import TestSupport

/// Times a person reads (drafts list, outbox list and show, flush lines) are in the local
/// time zone, as `TZ` in the environment of the run says; JSON keeps UTC.
@Suite struct LocalTimeTests {
    /// 2026-11-29 13:45:12 UTC.
    let moment = Timestamp(iso8601: "2026-11-29T13:45:12Z")

    /// A POSIX TZ string needs no zone database: 5 h 30 min east of Greenwich, called XST;
    /// Europe/Berlin comes from the zone database (CET in November).
    @Test(arguments: [
        ("XST-5:30", "2026-11-29 19:15", "XST"),
        ("UTC0", "2026-11-29 13:45", "UTC"),
        ("Europe/Berlin", "2026-11-29 14:45", "CET"),
    ])
    func outboxListAndShowAreInLocalTime(tz: String, local: String, zone: String) throws {
        let sandbox = try Sandbox()
        let created = try #require(moment)
        let entry = try outbox(in: sandbox).enqueue(message("Lunch?"), now: created)
        let list = try mailtoRoute(["outbox", "list"], in: sandbox, extraEnvironment: ["TZ": tz])
        #expect(list.status == 0, "\(list)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines[1].contains("NEXT ATTEMPT") && !lines[1].contains("UTC"), "\(lines[1])")
        #expect(lines[2].hasPrefix(entry.id) && lines[2].contains("  \(local)  "), "\(lines[2])")

        let show = try mailtoRoute(["outbox", "show", entry.id], in: sandbox, extraEnvironment: ["TZ": tz])
        #expect(show.stdout.contains("Queued:        \(local):12 \(zone)\n"), "\(show.stdout)")

        let json = try jsonObject(try mailtoRoute(["outbox", "show", entry.id, "--json"], in: sandbox,
                                                  extraEnvironment: ["TZ": tz]).stdout)
        #expect(json["created"] as? String == "2026-11-29T13:45:12Z")
    }

    @Test func draftsListIsInLocalTimeAndItsJSONInUTC() throws {
        let sandbox = try Sandbox()
        let store = Drafts(directory: sandbox.dataHome.appendingPathComponent("mailto-route/drafts").path)
        let draft = try store.save(message("Minutes").bytes)
        // The saving time is the file's modification time: 2026-11-30 13:45:12 UTC.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_796_046_312)],
                                              ofItemAtPath: draft.path)
        let list = try mailtoRoute(["drafts", "list"], in: sandbox, extraEnvironment: ["TZ": "XST-5:30"])
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("ID ") && lines[0].contains("SAVED") && !lines[0].contains("UTC"))
        #expect(lines[1].hasPrefix(draft.id) && lines[1].contains("  2026-11-30 19:15  "), "\(lines[1])")

        let json = try #require(try JSONSerialization.jsonObject(with: Data(try mailtoRoute(
            ["drafts", "list", "--json"], in: sandbox, extraEnvironment: ["TZ": "XST-5:30"]).stdout.utf8)) as? [[String: Any]])
        #expect(json.first?["saved"] as? String == "2026-11-30T13:45:12Z")
    }
}
