import Foundation
import MailtoCore
import Synchronization
import Testing
import TestSupport
@testable import AddressBookHelper

/// The sheet's side of the address books: the protocol in-process, and the client with the
/// real mailto-route-books on Debian's real evolution-data-server (a private bus), with no
/// EDS, and with a helper that never answers.
@Suite struct AddressBookHelperTests {
    @Test func anAnswerComesBackAsItWasWrittenWithoutControlCharacters() {
        let entries = [
            Contact(name: "Asa Berg", address: "asa@example.org"),
            Contact(name: "", address: "anon@example.org"),
            Contact(name: "Line\nBreak\u{1E}Record\u{1F}Unit", address: "lb@example.org"),
            Contact(name: "Bad Address", address: "bad\n@example.org"),
        ]
        let line = HelperProtocol.answer(entries)
        #expect(line.hasSuffix("\n"))
        #expect(line.dropLast().allSatisfy { $0 != "\n" })
        #expect(HelperProtocol.contacts(fromAnswer: String(line.dropLast())) == [
            Contact(name: "Asa Berg", address: "asa@example.org"),
            Contact(name: "", address: "anon@example.org"),
            Contact(name: "Line Break Record Unit", address: "lb@example.org"),
        ])
        #expect(HelperProtocol.contacts(fromAnswer: "").isEmpty)
        #expect(HelperProtocol.request("a\nb\u{0}c") == "a b c\n")
        let many = (0..<20).map { Contact(name: "P\($0)", address: "p\($0)@example.org") }
        #expect(HelperProtocol.contacts(fromAnswer: String(HelperProtocol.answer(many).dropLast())).count == HelperProtocol.limit)
    }

    @Test func theHelperFindsASeededContactByNameAndKeepsAnswering() throws {
        let eds = try EvolutionDataServer()
        try eds.seed([.init("Personal", contacts: [
            .init("Asa Berg", ["asa@example.org"]), .init("Bo Lind", ["bo@example.org"]),
        ])])
        let helper = AddressBookHelper(program: builtExecutable(AddressBookHelper.programName), environment: eds.environment,
                                       firstAnswerWithin: .seconds(30))
        #expect(helper.contacts(matching: "As") == [Contact(name: "Asa Berg", address: "asa@example.org")])
        // The same helper, the books open: a second answer, within the ordinary deadline
        // (a helper that misses it is stopped and its lookup finds nothing).
        #expect(helper.contacts(matching: "lind") == [Contact(name: "Bo Lind", address: "bo@example.org")])
        #expect(helper.contacts(matching: "zz").isEmpty)
    }

    /// With no EDS the helper ends (no books to read), and the lookup finds nothing then,
    /// not at its deadline: that is twice the test's patience here, and the lookup comes back
    /// within the patience.
    @Test func noEvolutionDataServerMeansNoContactsAtOnce() throws {
        let sandbox = try Sandbox()
        // A bus that can start nothing.
        let bus = try PrivateSessionBus()
        var environment = sandbox.environment.merging(EvolutionDataServer.schemaEnvironment) { $1 }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let helper = AddressBookHelper(program: builtExecutable(AddressBookHelper.programName), environment: environment,
                                       firstAnswerWithin: .seconds(2 * patience))
        let lookup = try #require(lookUp("As", with: helper), "the lookup waited for its deadline")
        #expect(lookup.found.isEmpty)
    }

    /// A helper that never answers (EDS stuck) costs one deadline, then nothing: it is
    /// killed, and for `retryAfter` no other is started.
    @Test func aHelperThatNeverAnswersIsGivenUpAtTheDeadline() throws {
        let sandbox = try Sandbox()
        let gate = try Gate(at: sandbox.root.appendingPathComponent("gate"))
        let script = sandbox.root.appendingPathComponent("helper")
        // Waits at the gate, which this test holds: it neither answers nor ends by itself.
        try writeProgram("#!/bin/sh\nexec flock -s '\(gate.path)' true\n", to: script)
        let helper = AddressBookHelper(program: script.path, environment: sandbox.environment,
                                       firstAnswerWithin: .milliseconds(500), answerWithin: .milliseconds(500))
        // The lookup comes back with the helper silent: its deadline ended it, and not
        // before (load can only make it later); the helper was killed then.
        let first = try #require(lookUp("As", with: helper, unlessStuck: gate.release), "the lookup did not come back")
        #expect(first.found.isEmpty)
        #expect(first.took >= .milliseconds(500), "\(first.took)")
        let running = commandLines().filter { $0.words.contains(script.path) || $0.words.contains(gate.path) }
        #expect(running.isEmpty, "the helper still runs: \(running)")
        // Within `retryAfter` no other is started: the program now answers at once, and the
        // next lookup still finds nothing.
        try writeProgram("#!/bin/sh\nwhile read -r line; do printf '%s\\037x@example.org\\n' \"$line\"; done\n", to: script)
        #expect(helper.contacts(matching: "Asa").isEmpty)
        // Held until here: the helper could not have ended by itself.
        gate.release()
    }

    /// Calls that pile up behind a slow one are answered with nothing at once but the newest:
    /// typing "A", "As", "Asa" against a slow EDS waits for two answers, never three.
    @Test func onlyTheNewestOfTheWaitingCallsIsAsked() throws {
        let sandbox = try Sandbox()
        let asked = sandbox.root.appendingPathComponent("asked")
        let gate = try Gate(at: sandbox.root.appendingPathComponent("gate"))
        let script = sandbox.root.appendingPathComponent("slow-helper")
        // Notes every line it is asked, and answers it with one contact named after the line
        // once the test lets it: when it releases the gate.
        try writeProgram("""
            #!/usr/bin/python3
            import fcntl, sys
            gate = open("\(gate.path)")
            for line in sys.stdin:
                with open("\(asked.path)", "a") as log: log.write(line)
                fcntl.flock(gate, fcntl.LOCK_SH)
                sys.stdout.write(line.strip() + "\\x1f" + "x@example.org\\n"); sys.stdout.flush()
            """, to: script)
        let helper = AddressBookHelper(program: script.path, environment: sandbox.environment,
                                       firstAnswerWithin: .seconds(patience), answerWithin: .seconds(patience))
        let results = Mutex<[String: [Contact]]>([:])
        let answered = DispatchGroup()
        func type(_ prefix: String) {
            answered.enter()
            Thread {
                let found = helper.contacts(matching: prefix)
                results.withLock { $0[prefix] = found }
                answered.leave()
            }.start()
        }
        type("A")
        // "A" is with the helper before the others are typed.
        try waitUntil("the helper was asked for A") { (try? String(contentsOf: asked, encoding: .utf8)) == "A\n" }
        for (prefix, number) in [("As", 2), ("Asa", 3)] as [(String, UInt64)] {
            type(prefix)
            // Typed after the one before: its call is made, waiting behind "A", before the next.
            try waitUntil("the call for \(prefix) is made") { helper.callsMade == number }
        }
        // The helper answers "A" now, and at once whatever it is asked after.
        gate.release()
        try #require(answered.wait(timeout: .now() + patience) == .success, "not every call came back")
        let found = results.withLock { $0 }
        #expect(found["A"] == [Contact(name: "A", address: "x@example.org")])
        #expect(found["As"] == [])
        #expect(found["Asa"] == [Contact(name: "Asa", address: "x@example.org")])
        #expect(try String(contentsOf: asked, encoding: .utf8) == "A\nAsa\n")
    }

    /// `helper.contacts(matching: prefix)` on a thread of its own, and how long it took; `nil`
    /// when it has not come back within the test's patience (then `unlessStuck` is run, to
    /// let it end).
    private func lookUp(
        _ prefix: String, with helper: AddressBookHelper, unlessStuck: () -> Void = {}
    ) -> (found: [Contact], took: Duration)? {
        let lookup = Mutex<(found: [Contact], took: Duration)?>(nil)
        let answered = DispatchSemaphore(value: 0)
        Thread {
            var found: [Contact] = []
            let took = ContinuousClock().measure { found = helper.contacts(matching: prefix) }
            lookup.withLock { $0 = (found, took) }
            answered.signal()
        }.start()
        guard answered.wait(timeout: .now() + patience) == .success else {
            unlessStuck()
            return nil
        }
        return lookup.withLock { $0 }
    }

    /// Writes an executable script from another process: a file this test process holds open
    /// for writing, inherited by a program another test forks meanwhile, cannot be run
    /// (ETXTBSY) while that program lives.
    private func writeProgram(_ text: String, to file: URL) throws {
        let wrote = try run("/bin/sh", ["-c", "cat > \"$0\" && chmod 755 \"$0\"", file.path], stdin: Data(text.utf8))
        try #require(wrote.status == 0, "\(wrote)")
    }
}
