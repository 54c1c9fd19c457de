import Foundation
import Outbox
import Testing
import TestSupport

@Suite struct LogCommandTests {
    func log(in sandbox: Sandbox) -> OutcomeLog {
        OutcomeLog(path: sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log").path)
    }

    func fill(_ log: OutcomeLog) throws {
        let time = Timestamp(secondsSinceEpoch: 1_800_000_000)
        try log.append(Outcome(time: time, source: "link", path: "handoff", result: "handedOff", handler: "thunderbird.desktop"))
        try log.append(Outcome(time: time + 60, source: "send", path: "direct", result: "queued", server: "smtp.example.org:587", errorKind: .transient))
        try log.append(Outcome(time: time + 120, source: "outbox", path: "outbox", result: "sent", server: "smtp.example.org:587"))
        var click = Outcome(time: time + 180, source: "link", path: "handoff", result: "handedOff", handler: "thunderbird.desktop")
        (click.arrival, click.requestedBy) = ("gio launch", "Firefox")
        try log.append(click)
    }

    @Test func logPrintsRecentRunsAsATable() throws {
        let sandbox = try Sandbox()
        let empty = try mailtoRoute(["log"], in: sandbox)
        #expect(empty.status == 0)
        #expect(empty.stdout.hasPrefix("Nothing logged yet"))

        try fill(log(in: sandbox))
        let result = try mailtoRoute(["log", "--count", "3"], in: sandbox)
        #expect(result.status == 0)
        #expect(result.stdout == """
            TIME (UTC)            SOURCE  ARRIVED BY            PATH     RESULT     HANDLER / SERVER      ERROR
            2027-01-15T08:01:00Z  send                          direct   queued     smtp.example.org:587  transient
            2027-01-15T08:02:00Z  outbox                        outbox   sent       smtp.example.org:587
            2027-01-15T08:03:00Z  link    gio launch (Firefox)  handoff  handedOff  thunderbird.desktop

            """)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try mailtoRoute(["log", "--json"], in: sandbox).stdout.utf8)) as? [[String: Any]])
        #expect(json.count == 4)
        #expect(json[1]["errorKind"] as? String == "transient")
        #expect(json[3]["arrival"] as? String == "gio launch" && json[3]["requestedBy"] as? String == "Firefox", "\(json)")
        #expect(try mailtoRoute(["log", "--count", "zero"], in: sandbox).status == 64)
    }

    @Test func statsCountPathsAndResults() throws {
        let sandbox = try Sandbox()
        try fill(log(in: sandbox))
        let result = try mailtoRoute(["log", "--stats"], in: sandbox)
        #expect(result.status == 0)
        #expect(result.stdout == """
            4 runs logged
            By path:   handoff 2, direct 1, outbox 1
            By result: handedOff 2, queued 1, sent 1
            PATH     RESULT     COUNT
            handoff  handedOff  2
            direct   queued     1
            outbox   sent       1

            """)
        let json = try mailtoRoute(["log", "--stats", "--json"], in: sandbox)
        #expect(json.stdout.hasPrefix("{\"total\": 4, \"unreadable\": 0, \"byPath\": {\"handoff\": 2, \"direct\": 1, \"outbox\": 1}, \"byResult\": {\"handedOff\": 2, \"queued\": 1, \"sent\": 1}"))
    }
}
