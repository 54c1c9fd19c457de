internal import CGTK
import MailtoCore
import MainLoop

/// The message's spelling in the sheet: misspelt words underlined (a "misspelled" tag), and,
/// on a right click, the text view's menu offers the words to put instead, the language's
/// dictionary, and the other languages (win.spelling-replace, win.spelling-language).
///
/// The checker is made once the window is up (enchant loads its dictionaries: not on the way
/// to the first frame), and a message is checked a moment after the typing stops. A message
/// over `maximumCheckedBytes` is not checked as it is typed: a 10 MB message stays
/// responsive.
@GLibMainActor
final class SheetSpelling {
    static let maximumCheckedBytes = 512 * 1024

    private unowned let sheet: ComposeSheet
    private(set) var checker: SpellChecker?
    private let tag: UnsafeMutablePointer<GtkTextTag>
    private var timer: guint = 0
    /// The extra menu the text view shows, rebuilt for the word under each right click.
    private let menu: GObjectRef
    private let gesture: GObjectRef

    init(sheet: ComposeSheet) {
        self.sheet = sheet
        tag = mr_create_misspelled_tag(bufferPointer(sheet.buffer))
        // Transfer full: adopted.
        menu = GObjectRef(adopting: UnsafeMutableRawPointer(g_menu_new()))
        gtk_text_view_set_extra_menu(mr_text_view(sheet.textView.widget), mr_menu_model(menu.pointer))
        gesture = GObjectRef(sinking: UnsafeMutableRawPointer(gtk_gesture_click_new()))
        gtk_gesture_single_set_button(mr_gesture_single(gesture.pointer), 3)
        gtk_event_controller_set_propagation_phase(mr_event_controller(gesture.pointer), GTK_PHASE_CAPTURE)
    }

    /// Loads the dictionary (the user's locale's) and checks the message once.
    func start() {
        guard checker == nil else { return }
        checker = SpellChecker()
        schedule()
    }

    /// Checks again a moment after the last edit.
    func schedule() {
        guard checker != nil else { return }
        if timer != 0 { g_source_remove(timer) }
        timer = mr_timeout_add(300, onSpellingDue, Unmanaged.passUnretained(self).toOpaque())
    }

    func stop() {
        if timer != 0 { g_source_remove(timer) }
        timer = 0
    }

    /// Underlines every misspelt word, and only those.
    func check() {
        timer = 0
        guard let checker else { return }
        let buffer = bufferPointer(sheet.buffer)
        var start = GtkTextIter()
        var end = GtkTextIter()
        gtk_text_buffer_get_bounds(buffer, &start, &end)
        gtk_text_buffer_remove_tag(buffer, tag, &start, &end)
        let text = bufferText(buffer)
        guard text.utf8.count <= Self.maximumCheckedBytes else { return }
        for word in Words.find(in: text) where !checker.isCorrect(word.text) {
            var from = GtkTextIter()
            var to = GtkTextIter()
            gtk_text_buffer_get_iter_at_offset(buffer, &from, Int32(word.start))
            gtk_text_buffer_get_iter_at_offset(buffer, &to, Int32(word.start + word.length))
            gtk_text_buffer_apply_tag(buffer, tag, &from, &to)
        }
    }

    /// The right click at `x`, `y` of the text view: the menu it is about to show gets the
    /// words for the misspelt word there, then the languages.
    func rightClick(x: Double, y: Double) {
        g_menu_remove_all(OpaquePointer(menu.pointer))
        guard let checker else { return }
        let view = mr_text_view(sheet.textView.widget)
        var bufferX: Int32 = 0
        var bufferY: Int32 = 0
        gtk_text_view_window_to_buffer_coords(view, GTK_TEXT_WINDOW_WIDGET, Int32(x), Int32(y), &bufferX, &bufferY)
        var iter = GtkTextIter()
        gtk_text_view_get_iter_at_location(view, &iter, bufferX, bufferY)
        let offset = Int(gtk_text_iter_get_offset(&iter))
        let text = bufferText(bufferPointer(sheet.buffer))
        if text.utf8.count <= Self.maximumCheckedBytes,
           let word = Words.find(in: text).first(where: { $0.start <= offset && offset <= $0.start + $0.length }),
           !checker.isCorrect(word.text) {
            let words = g_menu_new()
            let suggestions = checker.suggestions(for: word.text)
            for suggestion in suggestions {
                appendItem(words, label: suggestion, action: "win.spelling-replace", target: "\(word.start):\(word.length):\(suggestion)")
            }
            if suggestions.isEmpty { appendItem(words, label: tr("No Suggestions"), action: "win.spelling-none", target: nil) }
            g_menu_append_section(OpaquePointer(menu.pointer), nil, mr_menu_model(UnsafeMutableRawPointer(words)))
            g_object_unref(UnsafeMutableRawPointer(words))
        }
        let languages = g_menu_new()
        for language in checker.languages() {
            appendItem(languages, label: language, action: "win.spelling-language", target: language)
        }
        g_menu_append_submenu(OpaquePointer(menu.pointer), tr("Spelling Language"), mr_menu_model(UnsafeMutableRawPointer(languages)))
        g_object_unref(UnsafeMutableRawPointer(languages))
    }

    private func appendItem(_ menu: OpaquePointer?, label: String, action: String, target: String?) {
        // A menu item's underscore marks its mnemonic: "de_DE" would read "deDE".
        let item = g_menu_item_new(label.split(separator: "_", omittingEmptySubsequences: false).joined(separator: "__"), nil)
        if let target {
            g_menu_item_set_action_and_target_value(item, action, mr_variant_string(target))
        } else {
            g_menu_item_set_detailed_action(item, action)
        }
        g_menu_append_item(menu, item)
        g_object_unref(UnsafeMutableRawPointer(item))
    }

    /// `win.spelling-replace`: "START:LENGTH:WORD", the word at those offsets replaced,
    /// as one step of the text view's undo.
    func replace(_ target: String) {
        let parts = target.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let start = Int32(parts[0]), let length = Int32(parts[1]) else { return }
        let buffer = bufferPointer(sheet.buffer)
        var from = GtkTextIter()
        var to = GtkTextIter()
        gtk_text_buffer_get_iter_at_offset(buffer, &from, start)
        gtk_text_buffer_get_iter_at_offset(buffer, &to, start + length)
        gtk_text_buffer_begin_user_action(buffer)
        gtk_text_buffer_delete(buffer, &from, &to)
        gtk_text_buffer_insert(buffer, &from, String(parts[2]), -1)
        gtk_text_buffer_end_user_action(buffer)
    }

    /// `win.spelling-language`: another dictionary, and the message checked with it.
    func setLanguage(_ tag: String) {
        guard let checker, checker.setLanguage(tag) else { return }
        check()
    }

    /// The gesture, added to the text view (and taken off in `detach`).
    var controller: GObjectRef { gesture }
}

func onSpellingDue(_ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        data.map { Unmanaged<SheetSpelling>.fromOpaque($0).takeUnretainedValue() }?.check()
        return 0
    }
}
