import Foundation
@testable import MainLoop
import Testing
import TestSupport

/// The actor of GLib's main context: its jobs run on the thread that turns the context
/// (MainLoopThread, in this process); code that the loop runs enters it synchronously, as a
/// GTK signal handler does; and code on another thread is not on it.
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

    /// What `assumeIsolated` and the runtime's isolation check ask: a thread that does not
    /// turn the context is not on the actor. (Not an exit test of the trap itself: Swift
    /// Testing's exit-test monitor waits for any child, and spins on another test's.)
    @Test func onlyTheThreadThatTurnsTheContextIsOnTheActor() {
        _ = MainLoopThread.shared
        #expect(!MainContextExecutor.ownsContext, "the test's own thread")
        #expect(MainLoopThread.shared.run { MainContextExecutor.ownsContext })
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
