// The public API of mailto-route is this module; the value types it passes around come
// from MailtoCore and are part of it.
@_exported public import MailtoCore

// The desktop's side (registration, the network monitor `outbox watch` waits on, the
// mail programs) is part of the public API too; only its C stays behind its own door.
@_exported public import DesktopIntegration
