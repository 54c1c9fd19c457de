internal import CGTK
import DesktopIntegration
import MailtoCore
import MainLoop

// The desktop service's side of the application: its D-Bus objects, its actions, its
// notifications, and work it runs off the main thread.

/// A notification's button: its label, the application action it activates (without the
/// `app.` prefix) and the id that action is for.
public struct NotificationButton: Sendable {
    public var label: String
    public var action: String
    public var target: String

    public init(label: String, action: String, target: String) {
        self.label = label
        self.action = action
        self.target = target
    }
}

extension SheetApplication {
    /// Makes this the desktop service: adds `actions` (each taking one string: an outbox or
    /// draft id) for notification buttons, and registers the application, which takes its
    /// well-known name. Call before `run`, once the service's own D-Bus objects are exported
    /// (DesktopIntegration's `ServiceServer`), so that the call that activated it finds them.
    /// Throws when there is no session bus, or when another process is the primary instance
    /// already.
    public func serve(_ delegate: any ServiceDelegate, actions: [String], idleSeconds: Double) throws(ServiceError) {
        self.delegate = delegate
        for name in actions {
            let action = mr_string_action_new(name)
            let data = Unmanaged.passUnretained(self).toOpaque()
            g_signal_connect_data(UnsafeMutableRawPointer(action), "activate",
                                  unsafeBitCast(onAction as ActionHandler, to: GCallback.self), data, nil, GConnectFlags(0))
            g_action_map_add_action(mr_action_map(gApplication), mr_action(action))
            g_object_unref(UnsafeMutableRawPointer(action))
        }
        g_application_set_inactivity_timeout(gApplication, guint(max(0, idleSeconds) * 1000))
        var error: UnsafeMutablePointer<GError>?
        guard g_application_register(gApplication, nil, &error) != 0 else {
            throw ServiceError(takingMessage: error, tr("cannot register %@ on the session bus", ServiceNames.applicationID))
        }
        if g_application_get_is_remote(gApplication) != 0 {
            throw ServiceError(takingMessage: nil, tr("another process is %@ already", ServiceNames.applicationID))
        }
        // Started for a call that may never come: up for the inactivity timeout, then gone.
        hold()
        release()
    }

    fileprivate func activateAction(_ name: String, parameter: String) {
        hold()
        delegate?.activate(name, parameter: parameter)
        release()
    }

    /// Sends a notification as this application: wraps `g_notification_new`,
    /// `g_notification_add_button_with_target_value` and `g_application_send_notification`.
    /// GLib sends it to `org.gtk.Notifications` where that runs (GNOME: a button then
    /// activates the service over D-Bus, also after it exited) and to
    /// `org.freedesktop.Notifications` otherwise (a button works while the service runs).
    /// The same `id` replaces an earlier notification.
    public func notify(id: String, title: String, body: String, urgent: Bool, buttons: [NotificationButton]) {
        guard let notification = g_notification_new(title) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(notification)) }
        // GNOME Shell (org.gtk.Notifications) and the servers GLib falls back to read the body
        // as markup: a Message-ID's <…> would vanish, so it is escaped.
        if !body.isEmpty, let escaped = g_markup_escape_text(body, -1) {
            g_notification_set_body(notification, escaped)
            g_free(escaped)
        }
        if let icon = g_themed_icon_new(Identity.icon) {
            g_notification_set_icon(notification, icon)
            g_object_unref(UnsafeMutableRawPointer(icon))
        }
        g_notification_set_priority(notification, urgent ? G_NOTIFICATION_PRIORITY_URGENT : G_NOTIFICATION_PRIORITY_NORMAL)
        for button in buttons {
            g_notification_add_button_with_target_value(notification, button.label, "app.\(button.action)",
                                                        mr_variant_string(button.target))
        }
        g_application_send_notification(gApplication, id, notification)
    }

    /// Wraps `g_application_withdraw_notification`.
    public func withdrawNotification(id: String) {
        g_application_withdraw_notification(gApplication, id)
    }

    /// Opens `path` with the desktop's program for its type: wraps
    /// `g_app_info_launch_default_for_uri`. Throws GLib's message when there is none.
    public func showFile(_ path: String) throws(ServiceError) {
        guard let uri = g_filename_to_uri(path, nil, nil) else {
            throw ServiceError(takingMessage: nil, tr("%@ is not an absolute file name", path))
        }
        defer { g_free(uri) }
        var error: UnsafeMutablePointer<GError>?
        if g_app_info_launch_default_for_uri(uri, nil, &error) == 0 {
            throw ServiceError(takingMessage: error, tr("cannot open %@", path))
        }
    }

    /// Runs `work` on a thread of its own and `then` with its result on the main loop,
    /// holding the application meanwhile: a send blocks for as long as the server takes,
    /// and the sheets stay responsive.
    public func inBackground<Result: Sendable>(_ work: @escaping @Sendable () -> Result,
                                               then: @escaping @GLibMainActor (Result) -> Void) {
        hold()
        Background.run(work, then: { [self] result in
            then(result)
            release()
        })
    }
}

extension SheetApplication {
    /// Runs `work` on the main loop once, `seconds` from now: wraps `g_timeout_add_seconds`
    /// (whole seconds, as GLib groups such wake-ups).
    public func after(seconds: UInt32, _ work: @escaping @GLibMainActor () -> Void) {
        _ = g_timeout_add_seconds(seconds, onTimer, Unmanaged.passRetained(TimerJob(work)).toOpaque())
    }
}

private final class TimerJob {
    let body: @GLibMainActor () -> Void
    init(_ body: @escaping @GLibMainActor () -> Void) { self.body = body }
}

private func onTimer(_ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        guard let data else { return 0 }
        Unmanaged<TimerJob>.fromOpaque(data).takeRetainedValue().body()
        return 0
    }
}

/// A GSimpleAction's "activate": the notification button's id is its string parameter.
private func onAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(action, parameter, data) { action, parameter, data in
        guard let data, let action, let name = g_action_get_name(mr_action(action)) else { return }
        let application = Unmanaged<SheetApplication>.fromOpaque(data).takeUnretainedValue()
        let value = takeString(mr_variant_dup_string(parameter)) ?? ""
        application.activateAction(String(cString: name), parameter: value)
    }
}
