import Foundation
import MainLoop
import Testing
import TestSupport

/// The actor of GLib's main context: its jobs run on the thread that turns the context
/// (MainLoopThread, in this process); code that the loop runs enters it synchronously, as a
/// GTK signal handler does; and code on another thread cannot claim to be on it.
@Suite struct GLibMainActorTests {
    @Test func itsJobsRunOnTheThreadThatTurnsTheMainContext() async {
        let loop = MainLoopThread.shared.run { pthread_self() }
        let order = Order()
        let tasks = (0..<20).map { index in Task { @GLibMainActor in order.note(index, on: pthread_self()) } }
        for task in tasks { await task.value }
        let noted = await order.seen
        #expect(noted.map(\.index).sorted() == Array(0..<20))
        #expect(noted.allSatisfy { pthread_equal($0.thread, loop) != 0 })
    }

    @Test func aCallbackOnTheLoopEntersTheActorSynchronously() {
        let entered = MainLoopThread.shared.run {
            // As a GTK signal handler does: nonisolated code that the loop runs.
            enterAsACallbackWould()
        }
        #expect(entered)
    }

    @Test func aThreadThatDoesNotTurnTheLoopCannotEnterIt() async {
        await #expect(processExitsWith: .failure) {
            _ = MainLoopThread.shared
            GLibMainActor.assumeIsolated { _ = 0 }
        }
    }
}

/// What the actor's jobs saw, on the actor.
@GLibMainActor
private final class Order {
    private(set) var seen: [(index: Int, thread: pthread_t)] = []

    func note(_ index: Int, on thread: pthread_t) {
        seen.append((index, thread))
    }
}

private nonisolated func enterAsACallbackWould() -> Bool {
    GLibMainActor.assumeIsolated { Order.isolatedHere() }
}

extension Order {
    static func isolatedHere() -> Bool {
        GLibMainActor.shared.preconditionIsolated()
        return true
    }
}
