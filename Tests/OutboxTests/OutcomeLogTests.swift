import Foundation
import MailtoCore
@testable import Outbox
import Testing
import TestSupport

@Suite struct OutcomeLogTests {
    func log(_ sandbox: Sandbox) -> OutcomeLog {
        OutcomeLog(path: sandbox.stateHome.appendingPathComponent("mailto-route/outcomes.log").path)
    }

    let time = Timestamp(secondsSinceEpoch: 1_800_000_000)

    @Test func eachOutcomeIsOneJSONLineWithoutMessageContent() throws {
        let sandbox = try Sandbox()
        let log = log(sandbox)
        try log.append(Outcome(time: time, source: "link", path: "handoff", result: "handedOff", handler: "thunderbird.desktop"))
        try log.append(Outcome(time: time + 1, source: "send", path: "direct", result: "queued",
                               server: "smtp.example.org:587", errorKind: .transient))

        let text = try String(contentsOfFile: log.path, encoding: .utf8)
        #expect(text == """
            {"time": "2027-01-15T08:00:00Z", "source": "link", "path": "handoff", "result": "handedOff", "handler": "thunderbird.desktop"}
            {"time": "2027-01-15T08:00:01Z", "source": "send", "path": "direct", "result": "queued", "server": "smtp.example.org:587", "errorKind": "transient"}

            """)
        #expect(try permissions(log.path) == 0o600)
        // Each line is JSON another parser reads.
        for line in text.split(separator: "\n") {
            #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
        }
    }

    @Test func recentReturnsTheLastOutcomesOldestFirst() throws {
        let sandbox = try Sandbox()
        let log = log(sandbox)
        #expect(try log.recent(5).isEmpty)
        for index in 0..<3_000 {
            try log.append(Outcome(time: time + Int64(index), source: "send", path: "direct", result: "sent"))
        }
        let recent = try log.recent(5)
        #expect(recent.map(\.time.secondsSinceEpoch) == (2_995..<3_000).map { time.secondsSinceEpoch + Int64($0) })
        #expect(try log.recent(10_000).count == 3_000)
    }

    @Test func statsCountPathsAndResultsAndUnreadableLines() throws {
        let sandbox = try Sandbox()
        let log = log(sandbox)
        let runs: [(String, String)] = [
            ("direct", "sent"), ("handoff", "handedOff"), ("direct", "queued"), ("direct", "sent"),
            ("draft", "saved"), ("handoff", "handedOff"), ("direct", "sent"),
        ]
        for (path, result) in runs {
            try log.append(Outcome(time: time, source: "link", path: path, result: result))
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log.path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"time\": \"2027-01-15T08:0".utf8))  // cut short
        try handle.close()

        let stats = try log.stats()
        #expect(stats.total == 7)
        #expect(stats.unreadable == 1)
        #expect(stats.byPath.map(\.0) == ["direct", "handoff", "draft"])
        #expect(stats.byPath.map(\.1) == [4, 2, 1])
        #expect(stats.byResult.map(\.0) == ["sent", "handedOff", "queued", "saved"])
        #expect(stats.byResult.map(\.1) == [3, 2, 1, 1])
        #expect(stats.byPathAndResult.map { "\($0.path) \($0.result) \($0.count)" }
            == ["direct sent 3", "handoff handedOff 2", "direct queued 1", "draft saved 1"])
    }

    @Test func concurrentAppendsNeverInterleave() async throws {
        let sandbox = try Sandbox()
        let log = log(sandbox)
        let handler = String(repeating: "h", count: 200)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for index in 0..<250 {
                        try? log.append(Outcome(source: "w\(worker)", path: "handoff", result: "handedOff", handler: handler + "\(index)"))
                    }
                }
            }
        }
        let (outcomes, unreadable) = try log.all()
        #expect(outcomes.count == 1_000)
        #expect(unreadable == 0)
    }

    @Test func longFieldsAreCut() throws {
        let sandbox = try Sandbox()
        let log = log(sandbox)
        try log.append(Outcome(source: "send", path: "handoff", result: "failed", handler: String(repeating: "x", count: 10_000)))
        #expect(try log.recent(1).first?.handler?.count == 256)
    }
}
