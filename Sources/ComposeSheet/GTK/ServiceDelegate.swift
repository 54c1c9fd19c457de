internal import CGTK
import DesktopIntegration
import MailtoCore
import MainLoop

/// What the application is asked as the desktop service, answered by the program that
/// serves (mailto-route-desktop), on the GTK main thread. (Its own D-Bus objects, `Compose`
/// and the Email portal, are DesktopIntegration's `ServiceServer`.)
@GLibMainActor
public protocol ServiceDelegate: AnyObject {
    /// `org.freedesktop.Application.Open`: GLib launched the D-Bus activatable desktop
    /// entry with these URIs (a notification's default action, or the entry as a handler).
    func open(_ uris: [String])
    /// A notification's button: `retry-outbox` or `open-draft`, with the id it names.
    func activate(_ action: String, parameter: String)
}

/// The names the application takes.
public enum ServiceNames {
    public static let applicationID = ServiceProtocol.busName
}

/// The error of the service's D-Bus side: GLib's message.
public struct ServiceError: Error, CustomStringConvertible {
    public let description: String

    public init(_ message: String) {
        description = message
    }

    init(takingMessage error: UnsafeMutablePointer<GError>?, _ context: String) {
        let message = error?.pointee.message.map { String(cString: $0) } ?? tr("unknown error")
        if let error { g_error_free(error) }
        description = context.isEmpty ? message : "\(context): \(message)"
    }
}

/// A GLib string (transfer full) as a Swift one, freed.
func takeString(_ text: UnsafeMutablePointer<gchar>?) -> String? {
    guard let text else { return nil }
    defer { g_free(text) }
    return String(cString: text)
}
