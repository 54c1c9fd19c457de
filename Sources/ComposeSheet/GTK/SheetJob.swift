import MailtoCore
import MainLoop

/// One action of the sheet run off the main loop (an SMTP send blocks for as long as the
/// server takes), its result brought back to it (`Background`): the sheet (or a held Send
/// whose window was closed) is only ever touched on the main thread.
enum SheetJob {
    @GLibMainActor
    static func run(
        _ action: SheetAction, with email: EmailData, from account: String?, host: any SheetHost,
        then done: @escaping @GLibMainActor (SheetActionResult) -> Void
    ) {
        Background.run({ host.perform(action, with: email, from: account) }, then: done)
    }
}
