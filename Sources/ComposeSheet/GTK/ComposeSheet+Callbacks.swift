internal import CGTK
import MainLoop

// The C callbacks of the sheet's signals, shortcuts and timers: top-level, capturing
// nothing, each entering the main loop's actor (`GLibMainActor.assumeIsolated`, with the C
// arguments it uses) and recovering the sheet from its user data with Unmanaged
// (docs/style.md). The sheet disconnects them all in end(), before it goes away.

private func sheet(_ data: UnsafeMutableRawPointer?) -> ComposeSheet? {
    data.map { Unmanaged<ComposeSheet>.fromOpaque($0).takeUnretainedValue() }
}

func onAddressChanged(_ editable: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        guard let sheet = sheet(data) else { return }
        sheet.checkAddresses()
        sheet.noteEdit()
    }
}

func onToChanged(_ editable: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.updateTitle()
    }
}

func onSubjectChanged(_ editable: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        guard let sheet = sheet(data) else { return }
        sheet.checkSubject()
        sheet.noteEdit()
    }
}

func onBodyChanged(_ buffer: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        guard let sheet = sheet(data) else { return }
        sheet.noteEdit()
        sheet.spelling?.schedule()
    }
}

/// GtkGestureClick::pressed on the text view, button 3: before GTK shows its menu.
func onTextRightClick(_ gesture: UnsafeMutableRawPointer?, _ presses: Int32, _ x: Double, _ y: Double,
                      _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.spelling?.rightClick(x: x, y: y)
    }
}

func onSpellingReplaceAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(parameter, data) { parameter, data in
        guard let target = takeString(mr_variant_dup_string(parameter)) else { return }
        sheet(data)?.spelling?.replace(target)
    }
}

func onSpellingLanguageAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(action, parameter, data) { action, parameter, data in
        guard let sheet = sheet(data), let language = takeString(mr_variant_dup_string(parameter)) else { return }
        sheet.spelling?.setLanguage(language)
        if let action, let current = sheet.spelling?.checker?.language {
            g_simple_action_set_state(mr_simple_action(UnsafeMutableRawPointer(action)), mr_variant_string(current))
        }
    }
}

/// GtkTextBuffer::insert-text: the text being inserted (`length` bytes, not terminated).
func onBodyInserted(
    _ buffer: UnsafeMutableRawPointer?, _ location: UnsafeMutableRawPointer?, _ text: UnsafePointer<CChar>?, _ length: Int32,
    _ data: UnsafeMutableRawPointer?
) {
    GLibMainActor.assumeIsolated(text, data) { text, data in
        guard let sheet = sheet(data), let text, length > 0 else { return }
        let inserted = UnsafeRawBufferPointer(start: text, count: Int(length))
        sheet.bodyInserted(String(decoding: inserted, as: UTF8.self))
    }
}

func onBodyDeleted(_ buffer: UnsafeMutableRawPointer?, _ start: UnsafeMutableRawPointer?, _ end: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.bodyDeleted()
    }
}

func onMapped(_ window: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.mapped()
    }
}

func onFillBody(_ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.fillBody()
        return 0
    }
}

func onBodyCheckDue(_ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.checkBody()
        return 0
    }
}

func onRecoveryDue(_ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        (sheet(data)?.writeRecovery() ?? false) ? 1 : 0
    }
}

// The window's actions (GSimpleAction::activate): what a button, a menu item and an
// accelerator all do.

func onSendAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.requestSendAskingFirst()
    }
}

func onSaveDraftAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.start(.saveDraft)
    }
}

func onHandOffAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.start(.handOff)
    }
}

func onCopyAddressAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.copyAddress()
    }
}

func onCancelAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.requestCancel()
    }
}

func onShowCcAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.showCcField()
    }
}

func onShowBccAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.showBccField()
    }
}

func onShowShortcutsAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.showShortcuts()
    }
}

func onAttachAction(_ action: OpaquePointer?, _ parameter: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        guard let sheet = sheet(data), sheet.chooser == nil, !sheet.busy else { return }
        sheet.chooser = FileChooser(over: sheet)
    }
}

/// Closing the window is Cancel: the sheet decides, the window never just goes.
func onCloseRequest(_ window: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.requestCancel()
        return 1
    }
}

func onFileToggled(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        sheet(data)?.noteEdit()
    }
}

func onRemoveClicked(_ button: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(button, data) { button, data in
        guard let button else { return }
        sheet(data)?.removeFile(withButton: button)
    }
}

func onChooserResponse(_ dialog: UnsafeMutableRawPointer?, _ response: Int32, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(data) { data in
        guard let sheet = sheet(data), let chooser = sheet.chooser else { return }
        let paths = response == GTK_RESPONSE_ACCEPT.rawValue ? chooser.chosenPaths() : []
        chooser.close()
        sheet.chooser = nil
        sheet.addUserFiles(paths)
    }
}

/// Files dropped on the sheet: wraps `gdk_file_list_get_files` (transfer container: the
/// list is freed here, the files belong to the list).
func onDrop(_ target: OpaquePointer?, _ value: UnsafePointer<GValue>?, _ x: Double, _ y: Double, _ data: UnsafeMutableRawPointer?) -> gboolean {
    return GLibMainActor.assumeIsolated(value, data) { value, data in
        guard let sheet = sheet(data), let value, mr_value_holds_file_list(value) != 0,
              let list = g_value_get_boxed(value) else { return 0 }
        var paths: [String] = []
        var node = gdk_file_list_get_files(OpaquePointer(list))
        let head = node
        while let current = node {
            if let file = current.pointee.data, let path = localPath(OpaquePointer(file)) { paths.append(path) }
            node = current.pointee.next
        }
        g_slist_free(head)
        sheet.addUserFiles(paths)
        return paths.isEmpty ? 0 : 1
    }
}

/// AdwMessageDialog::response: the id of the response chosen ("close" when it was closed).
func onQuestionResponse(_ dialog: UnsafeMutableRawPointer?, _ response: UnsafePointer<CChar>?, _ data: UnsafeMutableRawPointer?) {
    GLibMainActor.assumeIsolated(response, data) { response, data in
        let answer = response.map { String(cString: $0) } ?? ""
        sheet(data)?.answer(answer == "save" ? .save : answer == "discard" ? .discard : .keepEditing)
    }
}
