/// The activation token of the click behind one request (Wayland's XDG activation token, or
/// X11's startup notification id), for the first window that request opens: a desktop
/// honours a token once, and a later window of the same request (the sheet the chooser's
/// answer opens) must not take the focus back from wherever the person has moved it by then.
/// Main thread only, as the service is.
final class ClickToken {
    private var value: String?

    init(_ value: String?) {
        self.value = value.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The token, once: `nil` from the second call on.
    func take() -> String? {
        defer { value = nil }
        return value
    }
}
