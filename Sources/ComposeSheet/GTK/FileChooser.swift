internal import CGTK
import MailtoCore
import MainLoop

/// The file chooser behind "Add…": `GtkFileChooserNative`, which goes through the
/// desktop's file chooser portal where one runs (the sandbox-friendly way) and is GTK's
/// own dialog elsewhere. (`GtkFileDialog` is GTK 4.10; Debian 12 has 4.8.)
@GLibMainActor
final class FileChooser {
    let chooser: GObjectRef
    private var connections = SignalConnections()
    private var closed = false

    init(over sheet: ComposeSheet) {
        // Wraps gtk_file_chooser_native_new (transfer full).
        guard let native = gtk_file_chooser_native_new(
            tr("Attach Files"), mr_window(sheet.window.widget), GTK_FILE_CHOOSER_ACTION_OPEN, tr("_Attach"), tr("_Cancel"))
        else { preconditionFailure("gtk_file_chooser_native_new returned NULL") }
        chooser = GObjectRef(adopting: UnsafeMutableRawPointer(native))
        gtk_file_chooser_set_select_multiple(mr_file_chooser(native), 1)
        gtk_native_dialog_set_modal(mr_native_dialog(native), 1)
        connections.connect(chooser, "response", callback(onChooserResponse), data: Unmanaged.passUnretained(sheet).toOpaque())
        gtk_native_dialog_show(mr_native_dialog(native))
    }

    var native: OpaquePointer { OpaquePointer(chooser.pointer) }

    /// The local paths chosen: wraps `gtk_file_chooser_get_files` (transfer full list,
    /// each item transfer full).
    func chosenPaths() -> [String] {
        guard let files = gtk_file_chooser_get_files(mr_file_chooser(native)) else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(files)) }
        var paths: [String] = []
        for index in 0..<g_list_model_get_n_items(files) {
            guard let item = g_list_model_get_item(files, index) else { continue }
            if let path = localPath(OpaquePointer(item)) { paths.append(path) }
            g_object_unref(item)
        }
        return paths
    }

    func close() {
        guard !closed else { return }
        closed = true
        connections.disconnectAll()
        // As SaveQuestion: not transient for the sheet, which may end right after.
        gtk_native_dialog_set_transient_for(mr_native_dialog(native), nil)
        gtk_native_dialog_destroy(mr_native_dialog(native))
    }

    isolated deinit {
        close()
    }
}
