internal import CEBook

/// Evolution Data Server's registry of data sources, of which the address books are some:
/// one owner of one `ESourceRegistry`, wrapping `e_source_registry_new_sync` (transfer full,
/// released with `g_object_unref` in `deinit`).
///
/// The registry's D-Bus traffic runs on a thread of its own (libedataserver's); the signals
/// it emits when a source changes go to the main context that was the thread default where
/// it was made (the program's main loop when made on a plain worker thread). None is
/// connected here: the books are read once, when `AddressBooks` opens.
final class SourceRegistry {
    let pointer: UnsafeMutablePointer<ESourceRegistry>

    /// Connects to `org.gnome.evolution.dataserver.Sources5` on the session bus, starting it
    /// when it is activatable; `nil` (with libedataserver's message in `error`) when there is
    /// no bus, or no registry on it.
    init?(cancellable: UnsafeMutablePointer<GCancellable>?, error message: inout String?) {
        guard Self.schemasInstalled else {
            message = "the GSettings schemas of evolution-data-server are not installed"
            return nil
        }
        var error: UnsafeMutablePointer<GError>?
        guard let registry = e_source_registry_new_sync(cancellable, &error) else {
            message = takeMessage(error)
            return nil
        }
        pointer = registry
        takeMessage(error)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// Whether the settings schemas that libedataserver and libebook read as soon as a
    /// registry or a book is made are there: `g_settings_new` aborts the process on a missing
    /// one (a program whose XDG_DATA_DIRS leaves out the system's, or the libraries installed
    /// without evolution-data-server-common), and the sheet must not go down for want of a
    /// completion. Wraps `g_settings_schema_source_lookup` on the default source (owned by
    /// GIO; `NULL` when no schema is installed at all), each schema found released with
    /// `g_settings_schema_unref`.
    static let schemasInstalled: Bool = {
        guard let schemas = g_settings_schema_source_get_default() else { return false }
        let names = ["org.gnome.evolution-data-server", "org.gnome.Evolution.DefaultSources",
                     "org.gnome.evolution-data-server.addressbook"]
        return names.allSatisfy { name in
            guard let schema = g_settings_schema_source_lookup(schemas, name, 1) else { return false }
            g_settings_schema_unref(schema)
            return true
        }
    }()

    /// The enabled address books that take part in address completion, as Evolution's
    /// ENameSelector and its mail composer choose them: ESourceAutocomplete's `include-me`,
    /// which is true for a book whose key file has no `[Autocomplete]` group (the extension's
    /// default). Wraps `e_source_registry_list_enabled` (transfer full: each `ESource`
    /// adopted by a `Source`, the list freed with `g_list_free`).
    func autocompletionBooks() -> [Source] {
        let list = mr_registry_list_enabled_address_books(pointer)
        defer { g_list_free(list) }
        var sources: [Source] = []
        var link = list
        while let element = link {
            if let data = element.pointee.data {
                let source = Source(adopting: mr_source(data))
                if source.isInAutocompletion { sources.append(source) }
            }
            link = element.pointee.next
        }
        return sources
    }
}

/// One data source of the registry (here, an address book): one owner of one `ESource`
/// reference, released with `g_object_unref` in `deinit`.
final class Source {
    let pointer: UnsafeMutablePointer<ESource>

    /// Adopts a reference the caller owns (transfer full).
    init(adopting pointer: UnsafeMutablePointer<ESource>) {
        self.pointer = pointer
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// The name the user gave the book ("Personal"): wraps `e_source_get_display_name`.
    var displayName: String {
        e_source_get_display_name(pointer).map { String(cString: $0) } ?? ""
    }

    /// Wraps `e_source_autocomplete_get_include_me` on the source's `ESourceAutocomplete`.
    var isInAutocompletion: Bool {
        e_source_autocomplete_get_include_me(mr_source_autocomplete(pointer)) != 0
    }
}

/// The message of a `GError` the caller owns, which is freed (`g_error_free`); `nil` for none.
@discardableResult
func takeMessage(_ error: UnsafeMutablePointer<GError>?) -> String? {
    guard let error else { return nil }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) }
}
