internal import CGIO
#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// A file in GLib key-file syntax (the config file, the state file, `mimeapps.list`),
/// read and written by GLib itself. The only Swift owner of a `GKeyFile *`
/// (`g_key_file_new`, transfer full; `g_key_file_free` in `deinit`). `@unchecked
/// Sendable` because a loaded file is handed between the run's threads only whole, one
/// owner at a time (GLib's key file has no lock of its own, so it is never shared live).
public final class KeyFile: @unchecked Sendable {
    /// `GKeyFile *`.
    private let pointer: OpaquePointer

    /// An empty key file.
    public init() {
        pointer = g_key_file_new()
    }

    deinit {
        g_key_file_free(pointer)
    }

    /// Wraps `g_key_file_load_from_file`, keeping comments and translations so that a
    /// file written back keeps them. `nil` when the file does not exist; a file that does
    /// not parse is named with the line, never with what the line holds.
    public static func load(_ path: String) throws(DesktopError) -> KeyFile? {
        let file = KeyFile()
        var error: UnsafeMutablePointer<GError>?
        let flags = GKeyFileFlags(rawValue: G_KEY_FILE_KEEP_COMMENTS.rawValue | G_KEY_FILE_KEEP_TRANSLATIONS.rawValue)
        if g_key_file_load_from_file(file.pointer, path, flags, &error) != 0 {
            return file
        }
        if let error, error.pointee.domain == g_key_file_error_quark() {
            // Its message may quote a password: see `syntaxError`.
            throw DesktopError(.configuration, syntaxError(in: path, glibMessage: takeErrorMessage(error)))
        }
        try throwUnlessMissing(error, "cannot read \(path)")
        return nil
    }

    /// Wraps `g_key_file_load_from_data`: the text of a file already read (`path` names it
    /// in the error, which never quotes what a line holds).
    public static func parse(_ text: String, path: String) throws(DesktopError) -> KeyFile {
        let file = KeyFile()
        var error: UnsafeMutablePointer<GError>?
        let flags = GKeyFileFlags(rawValue: G_KEY_FILE_KEEP_COMMENTS.rawValue | G_KEY_FILE_KEEP_TRANSLATIONS.rawValue)
        if g_key_file_load_from_data(file.pointer, text, gsize(text.utf8.count), flags, &error) == 0 {
            throw DesktopError(.configuration, syntaxError(in: path, glibMessage: takeErrorMessage(error)))
        }
        return file
    }

    /// Wraps `g_key_file_get_string` (transfer full): the value with escapes undone, or
    /// `nil` when the group or key is missing.
    public func string(_ group: String, _ key: String) -> String? {
        takeString(g_key_file_get_string(pointer, group, key, nil))
    }

    /// Wraps `g_key_file_get_string_list` (transfer full): a `;`-separated list.
    public func stringList(_ group: String, _ key: String) -> [String] {
        takeStrings(g_key_file_get_string_list(pointer, group, key, nil, nil))
    }

    /// Wraps `g_key_file_get_groups` (transfer full, freed with `g_strfreev`).
    public var groups: [String] {
        takeStrings(g_key_file_get_groups(pointer, nil))
    }

    /// Wraps `g_key_file_get_keys` (transfer full); empty when the group does not exist.
    public func keys(in group: String) -> [String] {
        takeStrings(g_key_file_get_keys(pointer, group, nil, nil))
    }

    /// Wraps `g_key_file_has_key`.
    public func has(_ group: String, _ key: String) -> Bool {
        g_key_file_has_key(pointer, group, key, nil) != 0
    }

    /// Wraps `g_key_file_set_string`: escapes the value as the format needs.
    public func set(_ value: String, _ group: String, _ key: String) {
        g_key_file_set_string(pointer, group, key, value)
    }

    /// Wraps `g_key_file_remove_group`; a group that is not there is no error.
    public func removeGroup(_ group: String) {
        _ = g_key_file_remove_group(pointer, group, nil)
    }

    /// Wraps `g_key_file_set_comment` for a group: the comment lines (without their `#`)
    /// written above it.
    public func setComment(_ comment: String, group: String) {
        _ = g_key_file_set_comment(pointer, group, nil, comment, nil)
    }

    /// Wraps `g_key_file_to_data` (transfer full) and `g_file_set_contents_full`: writes
    /// atomically and durably, with `mode` (GLib's own save gives a rewritten file 0666 less
    /// the umask, which would let others read a file that holds a password), and makes the
    /// missing directories above it (`g_mkdir_with_parents`, 0700).
    public func save(to path: String, mode: Int32) throws(DesktopError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty, g_mkdir_with_parents(directory, 0o700) != 0 {
            throw DesktopError(.configuration, "cannot create \(directory): \(systemErrorText(errno))")
        }
        var length: gsize = 0
        guard let data = g_key_file_to_data(pointer, &length, nil) else {
            throw DesktopError(.configuration, "cannot write \(path): GLib made no text of it")
        }
        defer { g_free(data) }
        let bytes = data.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
        try Files.write(bytes, to: path, mode: mode)
    }

    /// Wraps `g_key_file_remove_key`; a key that is not there is no error.
    public func removeKey(_ group: String, _ key: String) {
        _ = g_key_file_remove_key(pointer, group, key, nil)
    }

    /// Wraps `g_key_file_to_data` (transfer full): the file as it would be written, its
    /// comments kept.
    public var text: String {
        takeString(g_key_file_to_data(pointer, nil, nil)) ?? ""
    }

    /// Wraps `g_key_file_save_to_file`, which writes atomically (`g_file_set_contents`).
    public func save(to path: String) throws(DesktopError) {
        var error: UnsafeMutablePointer<GError>?
        if g_key_file_save_to_file(pointer, path, &error) == 0 {
            throw takeError(error, .configuration, "cannot write \(path)")
        }
    }
}

/// A NULL-terminated string vector GLib handed over (transfer full), as Swift strings;
/// frees it with `g_strfreev`.
func takeStrings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
    guard let vector else { return [] }
    defer { g_strfreev(vector) }
    return strings(UnsafeRawPointer(vector).assumingMemoryBound(to: UnsafePointer<gchar>?.self))
}

/// A NULL-terminated string vector GLib lends (transfer none), as Swift strings.
func strings(_ vector: UnsafePointer<UnsafePointer<gchar>?>?) -> [String] {
    guard let vector else { return [] }
    var strings: [String] = []
    var index = 0
    while let item = vector[index] {
        strings.append(String(cString: item))
        index += 1
    }
    return strings
}
