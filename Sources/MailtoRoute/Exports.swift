// The public API of mailto-route is this module; the value types it passes around come
// from MailtoCore and are part of it.
@_exported public import MailtoCore
