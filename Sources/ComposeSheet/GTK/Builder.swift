internal import CGTK

/// A GtkBuilder over one of the sheet's `.ui` files (embedded at build time: `Embedded`),
/// and the objects it made, fetched by id. Wraps `gtk_builder_new_from_string` (transfer
/// full: adopted here) and `gtk_builder_get_object` (transfer none: each object the sheet
/// keeps is taken with a reference of its own, `GObjectRef(sinking:)`).
final class UIBuilder {
    private let builder: GObjectRef

    init(_ xml: String) {
        // A .ui file that does not load is a programmer's error: it is in the program.
        guard let made = gtk_builder_new_from_string(xml, -1) else { preconditionFailure("gtk_builder_new_from_string returned NULL") }
        builder = GObjectRef(adopting: UnsafeMutableRawPointer(made))
    }

    /// Only the objects `ids` name (with what they hold) of the file
    /// (`gtk_builder_add_objects_from_string`). A window of the file that is not wanted
    /// now is not made: a GtkWindow, once made, is one of GTK's toplevels until destroyed,
    /// and GTK 4.8 answers an accessibility client's GetChildAtIndex past the shown windows
    /// with the last toplevel, which crashed the program when that was a window never shown.
    init(_ xml: String, only ids: [String]) {
        guard let made = gtk_builder_new() else { preconditionFailure("gtk_builder_new returned NULL") }
        builder = GObjectRef(adopting: UnsafeMutableRawPointer(made))
        var names = ids.map { strdup($0) } + [nil]
        defer { for name in names { free(name) } }
        var error: UnsafeMutablePointer<GError>?
        let built = names.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                gtk_builder_add_objects_from_string(made, xml, -1, $0, &error)
            }
        }
        guard built != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "no reason given"
            g_clear_error(&error)
            preconditionFailure("gtk_builder_add_objects_from_string: \(message)")
        }
    }

    /// The object `id` names, with a reference of the caller's own.
    func object(_ id: String) -> GObjectRef {
        guard let object = gtk_builder_get_object(OpaquePointer(builder.pointer), id) else {
            preconditionFailure("no object '\(id)' in the .ui file")
        }
        return GObjectRef(sinking: UnsafeMutableRawPointer(object))
    }
}
