internal import CGTK

// Small constructors for the widgets the sheet is made of, so that its layout reads as a
// layout. Each returns the new widget, floating: the container it is put in owns it, or a
// GObjectRef that sinks it. GTK's constructors never return NULL (they abort when memory
// runs out), and their results come in as implicitly unwrapped pointers.

func label(_ text: String, classes: [String] = [], wrap: Bool = false, xalign: Float = 0) -> UnsafeMutablePointer<GtkWidget> {
    let widget: UnsafeMutablePointer<GtkWidget> = gtk_label_new(text)
    gtk_label_set_xalign(mr_label(widget), xalign)
    if wrap {
        gtk_label_set_wrap(mr_label(widget), 1)
        gtk_label_set_wrap_mode(mr_label(widget), PANGO_WRAP_WORD_CHAR)
    }
    for name in classes { gtk_widget_add_css_class(widget, name) }
    return widget
}

func box(_ orientation: GtkOrientation, spacing: Int32) -> UnsafeMutablePointer<GtkWidget> {
    gtk_box_new(orientation, spacing)
}

func button(_ text: String, accessibleName: String? = nil) -> UnsafeMutablePointer<GtkWidget> {
    let widget: UnsafeMutablePointer<GtkWidget> = gtk_button_new_with_label(text)
    if let accessibleName { mr_set_accessible_label(widget, accessibleName) }
    return widget
}

func setVisible(_ widget: UnsafeMutablePointer<GtkWidget>, _ visible: Bool) {
    gtk_widget_set_visible(widget, visible ? 1 : 0)
}

func setSensitive(_ widget: UnsafeMutablePointer<GtkWidget>, _ sensitive: Bool) {
    gtk_widget_set_sensitive(widget, sensitive ? 1 : 0)
}

/// The text of a GtkEntry (transfer none: copied at once).
func entryText(_ entry: UnsafeMutablePointer<GtkWidget>) -> String {
    String(cString: gtk_editable_get_text(mr_editable(entry)))
}

/// The whole text of a buffer: wraps `gtk_text_buffer_get_text` (transfer full, freed here).
func bufferText(_ buffer: UnsafeMutablePointer<GtkTextBuffer>) -> String {
    var start = GtkTextIter()
    var end = GtkTextIter()
    gtk_text_buffer_get_bounds(buffer, &start, &end)
    guard let text = gtk_text_buffer_get_text(buffer, &start, &end, 0) else { return "" }
    defer { g_free(text) }
    return String(cString: text)
}

/// The local path of a GFile (transfer full, freed here); `nil` for one without a path.
func localPath(_ file: OpaquePointer) -> String? {
    guard let path = g_file_get_path(file) else { return nil }
    defer { g_free(path) }
    return String(cString: path)
}
