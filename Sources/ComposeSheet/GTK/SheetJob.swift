internal import CGTK
import MailtoCore

/// One action run off the GTK main thread (an SMTP send blocks for as long as the server
/// takes), its result brought back to the main loop with `g_idle_add`: the sheet (or a held
/// Send whose window was closed) is only ever touched on the main thread.
final class SheetJob: @unchecked Sendable {
    // @unchecked Sendable: `done` runs on the main thread only (in `onJobDone`), and
    // `result` is written by the worker before it adds the idle source, read after it ran.
    let action: SheetAction
    let email: EmailData
    /// The From chooser's account, read on the main thread when the job starts.
    let account: String?
    let host: any SheetHost
    /// What takes the result, on the main thread; kept alive by the job until then.
    let done: (SheetActionResult) -> Void
    var result: SheetActionResult = .failed("not run")

    private init(action: SheetAction, email: EmailData, account: String?, host: any SheetHost,
                 done: @escaping (SheetActionResult) -> Void) {
        self.action = action
        self.email = email
        self.account = account
        self.host = host
        self.done = done
    }

    static func run(
        _ action: SheetAction, with email: EmailData, from account: String?, host: any SheetHost,
        then done: @escaping (SheetActionResult) -> Void
    ) {
        let job = SheetJob(action: action, email: email, account: account, host: host, done: done)
        // Retained until onJobDone takes it back on the main loop.
        let thread = g_thread_new("mailto-route-sheet", onJobThread, Unmanaged.passRetained(job).toOpaque())
        g_thread_unref(thread)
    }
}

private func onJobThread(_ data: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let data else { return nil }
    let job = Unmanaged<SheetJob>.fromOpaque(data).takeUnretainedValue()
    job.result = job.host.perform(job.action, with: job.email, from: job.account)
    mr_idle_add_soon(onJobDone, data)
    return nil
}

private func onJobDone(_ data: UnsafeMutableRawPointer?) -> gboolean {
    guard let data else { return 0 }
    let job = Unmanaged<SheetJob>.fromOpaque(data).takeRetainedValue()
    job.done(job.result)
    return 0
}
