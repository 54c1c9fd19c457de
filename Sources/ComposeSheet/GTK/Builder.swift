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

    /// The object `id` names, with a reference of the caller's own.
    func object(_ id: String) -> GObjectRef {
        guard let object = gtk_builder_get_object(OpaquePointer(builder.pointer), id) else {
            preconditionFailure("no object '\(id)' in the .ui file")
        }
        return GObjectRef(sinking: UnsafeMutableRawPointer(object))
    }
}
