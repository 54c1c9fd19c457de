import Foundation
import MailtoCore
@testable import Outbox
import Testing
import TestSupport

@Suite struct RecipientHistoryTests {
    let time = Timestamp(secondsSinceEpoch: 1_800_000_000)

    /// The history where a session in `sandbox` keeps it.
    func history(_ sandbox: Sandbox) -> RecipientHistory {
        RecipientHistory(path: sandbox.stateHome.appendingPathComponent("mailto-route/recipients").path)
    }

    /// A send appends a line per recipient; the reader adds up an address's lines whatever
    /// the case of its domain, keeps the spelling first written, the latest time and the
    /// latest name given (a send without one keeps it).
    @Test func eachSendAppendsALineAndTheReaderAddsThemUp() throws {
        let sandbox = try Sandbox()
        let history = history(sandbox)
        try history.record(["asa@example.org", "bob@example.org"], names: ["asa@example.org": "Asa"], now: time)
        try history.record(["asa@EXAMPLE.org"], names: ["asa@EXAMPLE.org": "Asa Berg"], now: time + 5)
        try history.record(["asa@example.org"], names: [:], now: time + 9)

        let text = try String(contentsOfFile: history.path, encoding: .utf8)
        #expect(text == """
            1\t1800000000\tasa@example.org\tAsa
            1\t1800000000\tbob@example.org\t
            1\t1800000005\tasa@EXAMPLE.org\tAsa Berg
            1\t1800000009\tasa@example.org\t

            """)
        #expect(try permissions(history.path) == 0o600)
        let entries = try history.entries()
        #expect(entries == [
            RecipientHistory.Entry(address: "asa@example.org", name: "Asa Berg", count: 3, lastUsed: time + 9),
            RecipientHistory.Entry(address: "bob@example.org", name: nil, count: 1, lastUsed: time),
        ])
    }

    /// Forgetting an address rewrites the file merged, one line an address.
    @Test func forgettingRewritesTheFileOneLineAnAddress() throws {
        let sandbox = try Sandbox()
        let history = history(sandbox)
        try history.record(["asa@example.org", "bob@example.org"], names: [:], now: time)
        try history.record(["bob@example.org"], names: ["bob@example.org": "Bob"], now: time + 1)
        try history.forget("ASA@example.org")
        #expect(try String(contentsOfFile: history.path, encoding: .utf8) == "2\t1800000001\tbob@example.org\tBob\n")
    }

    /// Once appending makes the file longer than `compactionSize`, it is rewritten merged,
    /// and nothing it counted is lost.
    @Test func aLongFileIsRewrittenMerged() throws {
        let sandbox = try Sandbox()
        let history = history(sandbox)
        let line = "1\t1800000000\tasa@example.org\t\n"
        let lines = RecipientHistory.compactionSize / line.utf8.count
        try makeDirectories(parentDirectory(of: history.path))
        try String(repeating: line, count: lines).write(toFile: history.path, atomically: false, encoding: .utf8)
        try history.record(["asa@example.org"], names: [:], now: time + 1)
        #expect(try String(contentsOfFile: history.path, encoding: .utf8) == "\(lines + 1)\t1800000001\tasa@example.org\t\n")
    }
}
