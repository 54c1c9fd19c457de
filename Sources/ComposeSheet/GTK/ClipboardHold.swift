internal import CGTK
import MailtoCore
import DesktopIntegration
import MainLoop

/// Text this program put on the desktop's clipboard (Copy Address), held for as long as it
/// owns the clipboard: X11's and Wayland's clipboards are owned by a process, so the copy
/// lasts only while this one runs. `lost` is called once another program has taken the
/// clipboard (`GdkClipboard::changed` with content no longer local); the application lets
/// itself quit then.
@GLibMainActor
final class ClipboardHold {
    private let clipboard: GObjectRef
    private var connections = SignalConnections()
    private let lost: () -> Void

    /// `clipboard`: a display's clipboard (`gdk_display_get_clipboard`, transfer none:
    /// referenced here), which holds this program's text now.
    init(_ clipboard: OpaquePointer, lost: @escaping () -> Void) {
        self.clipboard = GObjectRef(sinking: UnsafeMutableRawPointer(clipboard))
        self.lost = lost
        connections.connect(self.clipboard, "changed", callback(onClipboardChanged), data: Unmanaged.passUnretained(self).toOpaque())
    }

    isolated deinit {
        connections.disconnectAll()
    }

    /// Wraps `gdk_clipboard_is_local`: another program's content now, the hold ends.
    fileprivate func changed() {
        guard gdk_clipboard_is_local(OpaquePointer(clipboard.pointer)) == 0 else { return }
        connections.disconnectAll()
        lost()
    }
}

private func onClipboardChanged(_ clipboard: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        guard let data else { return }
        Unmanaged<ClipboardHold>.fromOpaque(data).takeUnretainedValue().changed()
    }
}

extension SheetApplication {
    /// Puts `text` on the clipboard of this application's display and holds it there: the
    /// application stays running (a service does not idle out) until another program takes
    /// the clipboard. Wraps `gdk_display_get_default`, `gdk_display_get_clipboard`
    /// (transfer none), `gdk_clipboard_set_text`, and `gdk_display_sync`: a Wayland
    /// compositor takes the selection only from the client with the keyboard focus, and
    /// cancels anyone else's (the clipboard is then no longer local after the round trip),
    /// as for a service asked from a terminal, with no window; the text then goes to
    /// `wl-copy` (`ClipboardHandover`), which gets the focus with a surface of its own.
    /// Throws when there is no display, or when neither could put it there: never a copy
    /// that did not happen.
    public func copy(_ text: String) throws(ServiceError) {
        guard showsSheets, let display = gdk_display_get_default(), let clipboard = gdk_display_get_clipboard(display) else {
            throw ServiceError(tr("the desktop service has no display to hold the clipboard on"))
        }
        gdk_clipboard_set_text(clipboard, text)
        gdk_display_sync(display)
        guard gdk_clipboard_is_local(clipboard) != 0 else {
            do throws(DesktopError) {
                return try ClipboardHandover.copy(text)
            } catch {
                throw ServiceError(error.message)
            }
        }
        guard clipboardHold == nil else { return }
        hold()
        clipboardHold = ClipboardHold(clipboard) { [weak self] in
            guard let self else { return }
            clipboardHold = nil
            release()
        }
    }
}
