internal import CGTK

/// One Swift owner of one GObject reference (docs/style.md habit 2): a floating reference (a
/// new widget) is sunk, a full one adopted, and the reference is dropped in `deinit`.
final class GObjectRef {
    let pointer: UnsafeMutableRawPointer

    /// Takes a reference of its own: `g_object_ref_sink` (sinks a floating reference, adds
    /// one otherwise).
    init(sinking pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
        g_object_ref_sink(pointer)
    }

    /// Adopts a reference the caller owns (transfer full).
    init(adopting pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
    }

    var widget: UnsafeMutablePointer<GtkWidget> { mr_widget(pointer) }

    deinit {
        g_object_unref(pointer)
    }
}

/// The signal handlers one owner connected, disconnected by that owner (docs/style.md habit
/// 14) before it lets go of the objects, so that no handler runs with a stale `Unmanaged`.
struct SignalConnections {
    private var handlers: [(instance: GObjectRef, id: gulong)] = []

    /// Wraps `g_signal_connect_data`; `handler` is a top-level `@convention(c)` function
    /// that recovers its owner from `data` with `Unmanaged`.
    mutating func connect(_ instance: GObjectRef, _ signal: String, _ handler: GCallback, data: UnsafeMutableRawPointer) {
        let id = mr_signal_connect(instance.pointer, signal, handler, data)
        handlers.append((instance, id))
    }

    mutating func disconnectAll() {
        for handler in handlers { g_signal_handler_disconnect(handler.instance.pointer, handler.id) }
        handlers = []
    }
}

// GObject's signals take any signature as a `GCallback`; these are the ones the sheet's
// handlers have, each cast to it.
typealias Handler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
typealias BoolHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean
typealias ResponseHandler = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void
typealias InsertTextHandler = @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32, UnsafeMutableRawPointer?) -> Void
typealias DeleteRangeHandler = @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
/// GSimpleAction::activate: the action, its parameter (a GVariant, or NULL), the data.
typealias ActionHandler = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
/// AdwMessageDialog::response: the dialog, the response id, the data.
typealias StringHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
/// GtkGestureClick::pressed: the gesture, the number of presses, where.
typealias PressHandler = @convention(c) (UnsafeMutableRawPointer?, Int32, Double, Double, UnsafeMutableRawPointer?) -> Void
/// GtkEventControllerKey::key-pressed: the controller, the key's value and code, the modifiers.
typealias KeyHandler = @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean
/// GtkListBox::row-activated: the list, the row.
typealias RowHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
typealias DropHandler = @convention(c) (OpaquePointer?, UnsafePointer<GValue>?, Double, Double, UnsafeMutableRawPointer?) -> gboolean

func callback(_ function: Handler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: BoolHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: ResponseHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: ActionHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: StringHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: PressHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: KeyHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: RowHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: DropHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: InsertTextHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
func callback(_ function: DeleteRangeHandler) -> GCallback { unsafeBitCast(function, to: GCallback.self) }
