import MailtoCore
import Testing
@testable import SMTPTransport

/// `SendStop`'s one rule: a Stop is made only before the end of the message goes out, and
/// after what must come first (`beforeStopping`) was done. The sending side's calls are
/// made here as a transfer makes them (StopTests has them made by libcurl).
@Suite struct SendStopTests {
    @Test func aStopAskedBeforeTheEndStopsItThere() {
        let stop = SendStop()
        #expect(!stop.endsTransfer())
        #expect(stop.ask())
        #expect(stop.endsTransfer())
        #expect(!stop.commit())
        #expect(stop.wasStopped)
        // Asked again: still stopped, and said so.
        #expect(stop.ask())
    }

    @Test func afterTheEndAStopIsTooLate() {
        let stop = SendStop()
        #expect(stop.commit())
        #expect(!stop.ask())
        #expect(!stop.endsTransfer())
        #expect(!stop.wasStopped)
    }

    @Test func aSendThatEndedTakesNoStop() {
        let stop = SendStop()
        stop.end()
        #expect(!stop.ask())
        #expect(!stop.wasStopped)
    }

    @Test func whatMustComeFirstIsDoneOnceBeforeTheStop() {
        let stop = SendStop()
        let steps = Counter()
        stop.setBeforeStopping { steps.add() }
        #expect(stop.ask())
        #expect(steps.value == 0, "done by the sending side, not by whoever asked")
        #expect(stop.endsTransfer())
        #expect(stop.endsTransfer())
        #expect(steps.value == 1)
    }

    @Test func whenWhatMustComeFirstFailsTheSendGoesOn() {
        struct Full: Error, CustomStringConvertible { var description: String { "the disk is full" } }
        let stop = SendStop()
        stop.setBeforeStopping { throw Full() }
        #expect(stop.ask())
        #expect(!stop.endsTransfer())
        #expect(stop.commit())
        #expect(!stop.wasStopped)
        #expect(stop.refusal == "the disk is full")
        #expect(!stop.ask())
    }

    @Test func askWakesTheTransferWhileItWaits() {
        let stop = SendStop()
        let wakes = Counter()
        stop.whileTransferring(wake: { wakes.add() }) {
            #expect(stop.ask())
        }
        // Not after the transfer: its wait is gone.
        _ = stop.ask()
        #expect(wakes.value == 1)
    }
}

private final class Counter: @unchecked Sendable {
    private(set) var value = 0
    func add() { value += 1 }
}
