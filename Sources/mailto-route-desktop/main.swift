#if canImport(Glibc)
import Glibc
#endif
import MailtoCore
import MailtoRouteDesktop

// mailto-route-desktop: the compose sheet and the desktop service (MailtoRouteDesktop's
// DesktopProgram says what each invocation does, and its exit statuses).

Localization.bind()
switch DesktopInvocation.parse(Array(CommandLine.arguments.dropFirst())) {
case .success(let invocation):
    _exit(DesktopProgram.run(invocation, context: .current()))
case .failure(let usage):
    _exit(DesktopProgram.fail(usage.message, status: DesktopProgram.usageStatus))
}
