internal import CGTK
import MailtoCore
import MainLoop

/// One file in the sheet's lists: a trusted attachment (a local program's or the user's
/// own, ticked and removable) or one a link asked for (unticked, with its full path, and
/// not tickable when it is no readable regular file).
@GLibMainActor
final class FileRow {
    enum Origin { case trusted, requested }

    let origin: Origin
    /// What is attached when ticked; `nil` when it cannot be.
    let attachment: Attachment?
    let path: String?
    let facts: FileFacts
    let row: GObjectRef
    let check: GObjectRef
    let remove: GObjectRef?
    private var connections = SignalConnections()

    var isTicked: Bool { attachment != nil && gtk_check_button_get_active(mr_check_button(check.widget)) != 0 }

    /// A trusted attachment: its name, size and (for a file) its path, ticked.
    init(trusted attachment: Attachment) {
        origin = .trusted
        switch attachment.content {
        case .file(let path):
            self.path = path
            facts = FileFacts(path: path)
        case .data(let bytes):
            path = nil
            facts = FileFacts(size: bytes.count)
        }
        self.attachment = facts.problem == nil ? attachment : nil
        let line = box(GTK_ORIENTATION_HORIZONTAL, spacing: 8)
        check = GObjectRef(sinking: gtk_check_button_new_with_label(attachment.fileName.visible))
        gtk_check_button_set_active(mr_check_button(check.widget), facts.problem == nil ? 1 : 0)
        gtk_box_append(mr_box(line), check.widget)
        let detail = [facts.size.map(readableSize) ?? facts.problem, path.map(LocalPath.display)].compactMap { $0?.visible }.joined(separator: " · ")
        let detailLabel = label(detail, classes: ["dim-label", "caption"])
        gtk_label_set_ellipsize(mr_label(detailLabel), PANGO_ELLIPSIZE_MIDDLE)
        gtk_widget_set_hexpand(detailLabel, 1)
        gtk_box_append(mr_box(line), detailLabel)
        let removeButton = button(tr("Remove"), accessibleName: tr("Remove %@", attachment.fileName.visible))
        gtk_box_append(mr_box(line), removeButton)
        remove = GObjectRef(sinking: removeButton)
        if facts.problem != nil { setSensitive(check.widget, false) }
        row = GObjectRef(sinking: FileRow.listRow(line))
    }

    /// A file a link asked for: its full path, unticked; shown as what it is when it
    /// cannot be attached.
    init(requested path: String) {
        origin = .requested
        self.path = path
        facts = FileFacts(path: path)
        attachment = facts.problem == nil ? .file(path) : nil
        let line = box(GTK_ORIENTATION_HORIZONTAL, spacing: 8)
        // The full path, wrapped rather than widening the sheet: a link chooses its length.
        check = GObjectRef(sinking: gtk_check_button_new())
        let pathLabel = label(LocalPath.display(path).visible, wrap: true)
        gtk_label_set_wrap_mode(mr_label(pathLabel), PANGO_WRAP_CHAR)
        gtk_check_button_set_child(mr_check_button(check.widget), pathLabel)
        mr_set_accessible_label(check.widget, LocalPath.display(path).visible)
        gtk_widget_set_hexpand(check.widget, 1)
        gtk_check_button_set_active(mr_check_button(check.widget), 0)
        gtk_box_append(mr_box(line), check.widget)
        let state = facts.problem.map { tr("%@: cannot be attached", $0) } ?? facts.size.map(readableSize) ?? ""
        let stateLabel = label(state, classes: facts.problem == nil ? ["dim-label", "caption"] : ["error", "caption"])
        gtk_widget_set_halign(stateLabel, GTK_ALIGN_END)
        gtk_box_append(mr_box(line), stateLabel)
        if facts.problem != nil {
            setSensitive(check.widget, false)
            mr_set_accessible_description(check.widget, state)
        }
        remove = nil
        row = GObjectRef(sinking: FileRow.listRow(line))
    }

    private static func listRow(_ child: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWidget> {
        let row: UnsafeMutablePointer<GtkWidget> = gtk_list_box_row_new()
        gtk_list_box_row_set_child(mr_list_box_row(row), child)
        gtk_list_box_row_set_activatable(mr_list_box_row(row), 0)
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] { side(child, 2) }
        for side in [gtk_widget_set_margin_start, gtk_widget_set_margin_end] { side(child, 6) }
        return row
    }

    func connect(to sheet: ComposeSheet) {
        let data = Unmanaged.passUnretained(sheet).toOpaque()
        connections.connect(check, "toggled", callback(onFileToggled), data: data)
        if let remove { connections.connect(remove, "clicked", callback(onRemoveClicked), data: data) }
    }

    func disconnect() {
        connections.disconnectAll()
    }
}

extension ComposeSheet {
    func addFile(_ file: FileRow) {
        let list = file.origin == .requested ? requestedList : attachmentList
        gtk_list_box_append(mr_list_box(list.widget), file.row.widget)
        file.connect(to: self)
        files.append(file)
    }

    /// Files the user chose or dropped: trusted, ticked; a file already listed is not
    /// listed twice.
    func addUserFiles(_ paths: [String]) {
        var added = false
        for path in paths where !files.contains(where: { $0.origin == .trusted && $0.path == path }) {
            addFile(FileRow(trusted: .file(path)))
            added = true
        }
        if added { noteEdit() }
    }

    func removeFile(withButton button: UnsafeMutableRawPointer) {
        guard let index = files.firstIndex(where: { $0.remove?.pointer == button }) else { return }
        let file = files.remove(at: index)
        file.disconnect()
        gtk_list_box_remove(mr_list_box(attachmentList.widget), file.row.widget)
        noteEdit()
    }
}
