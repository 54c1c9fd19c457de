internal import CGTK
import MailtoCore

/// One action run off the GTK main thread (an SMTP send blocks for as long as the server
/// takes), its result brought back to the main loop with `g_idle_add`: the sheet is only
/// ever touched on the main thread.
final class SheetJob: @unchecked Sendable {
    let action: SheetAction
    let email: EmailData
    /// The From chooser's account, read on the main thread when the job starts.
    let account: String?
    let host: any SheetHost
    /// Touched on the main thread only (here and in `onJobDone`); kept alive by the job
    /// until the result is in.
    let sheet: ComposeSheet
    /// Written by the worker before it adds the idle source, read after it ran.
    var result: SheetActionResult = .failed("not run")

    private init(action: SheetAction, email: EmailData, host: any SheetHost, sheet: ComposeSheet) {
        self.action = action
        self.email = email
        account = sheet.chosenAccount
        self.host = host
        self.sheet = sheet
    }

    static func run(_ action: SheetAction, with email: EmailData, host: any SheetHost, for sheet: ComposeSheet) {
        let job = SheetJob(action: action, email: email, host: host, sheet: sheet)
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
    job.sheet.finish(job.action, job.result)
    return 0
}
