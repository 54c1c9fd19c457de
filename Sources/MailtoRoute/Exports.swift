// The public API of mailto-route is this module; the value types it passes around come
// from MailtoCore and are part of it.
@_exported public import MailtoCore

// `outbox watch` waits on GIO's network monitor; the command line sees it through this
// module, under its own name.
public import DesktopIntegration
public typealias NetworkMonitor = DesktopIntegration.NetworkMonitor
