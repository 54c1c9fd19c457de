internal import CGTK
import MailtoCore
import MainLoop

/// A held Send whose window the user closed during the Undo time: the time runs on with no
/// window, and no GTK window waits hidden meanwhile (GTK 4.8 answers a screen reader that
/// asks for the window past the last shown one with the last window it has, shown or not;
/// a hidden one has no accessible path, and the answer crashes the process). At the end
/// of the time the message goes, as the sheet would send it; **Undo** (the notification's,
/// through the host) brings it back in a new sheet made from what the closed one held, as
/// does a refusal for good, so that the user can correct it.
///
/// Main thread only. Kept by the SheetApplication, which holds the application meanwhile
/// (the service does not quit with a message held) and opens the new sheet.
@GLibMainActor
final class ClosedHold {
    /// Why a sheet shows the message again.
    enum Return {
        /// Undo: nothing was sent.
        case undone
        /// The server refused it for good (the outbox keeps its copy in failed/).
        case refused(String)
    }

    /// What the sheet held when it closed (its message as typed, its account), to open again.
    let content: SheetContent
    let host: any SheetHost
    /// The closed sheet's, suspended while the outbox has the message; the new sheet's.
    let recovery: RecoveryFile?
    /// The message as the sheet would send it, and the account it goes from.
    private let sending: EmailData
    private let account: String?
    private var remaining: Int
    private var timer: guint = 0
    /// The message is being sent, or went, or was undone: nothing more to do here.
    private var over = false
    private var reopen: (ClosedHold, Return) -> Void = { _, _ in }
    private var finished: (ClosedHold) -> Void = { _ in }

    init(content: SheetContent, sending: EmailData, account: String?, host: any SheetHost, recovery: RecoveryFile?, remaining: Int) {
        self.content = content
        self.sending = sending
        self.account = account
        self.host = host
        self.recovery = recovery
        self.remaining = remaining
    }

    /// Counts the rest of the Undo time down. `reopen` opens a sheet on `content` (this
    /// object is done then); `finished`: the message went (or the outbox has it), and the
    /// request is over.
    func start(reopen: @escaping (ClosedHold, Return) -> Void, finished: @escaping (ClosedHold) -> Void) {
        self.reopen = reopen
        self.finished = finished
        if remaining > 0 {
            timer = mr_timeout_add(1000, onClosedHoldTick, Unmanaged.passUnretained(self).toOpaque())
        } else {
            release()
        }
    }

    fileprivate func tick() -> Bool {
        remaining -= 1
        guard remaining <= 0 else { return true }
        timer = 0
        release()
        return false
    }

    /// The Undo time is over: the held message goes, as at the end of a sheet's hold.
    private func release() {
        guard !over else { return }
        over = true
        SheetJob.run(.releaseHold, with: sending, from: account, host: host) { [self] result in
            if case .failed(let message) = result {
                // Rule 3: the text is the user's again.
                recovery?.resume(with: content.email)
                reopen(self, .refused(message))
                return
            }
            recovery?.remove()
            host.sheetClosed()
            finished(self)
        }
    }

    /// Undo: the message leaves the outbox unsent and shows again in a new sheet.
    /// `false`: too late (its sending began), or it is no longer held here.
    func undo() -> Bool {
        guard !over else { return false }
        guard RecoveryFile.takeBack(content.email, into: recovery, from: host) == nil else { return false }
        over = true
        if timer != 0 { g_source_remove(timer) }
        timer = 0
        reopen(self, .undone)
        return true
    }
}

private func onClosedHoldTick(_ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        guard let data else { return 0 }
        return Unmanaged<ClosedHold>.fromOpaque(data).takeUnretainedValue().tick() ? 1 : 0
    }
}
