internal import CGIO

/// A file in GLib's key-file syntax (the desktop's own `.ini` dialect), read once: the
/// mailto-route config file. Owns one `GKeyFile` (`g_key_file_free` in `deinit`).
public final class KeyFile {
    private let file: OpaquePointer

    /// Wraps `g_key_file_new` (transfer full) and `g_key_file_load_from_file`. Throws the
    /// reason as GLib words it (`Key file contains line “x” which is not ...`), with the
    /// line, when the file cannot be read or parsed.
    public init(path: String) throws(KeyFileError) {
        guard let file = g_key_file_new() else { throw KeyFileError(message: "g_key_file_new failed") }
        self.file = file
        var error: UnsafeMutablePointer<GError>?
        if g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, &error) == 0 {
            throw KeyFileError(message: takeGErrorMessage(error))
        }
    }

    deinit { g_key_file_free(file) }

    /// Wraps `g_key_file_get_groups` (transfer full, freed here with `g_strfreev`).
    public var groups: [String] {
        Self.strings(g_key_file_get_groups(file, nil))
    }

    /// Wraps `g_key_file_get_keys`; empty when the group does not exist.
    public func keys(in group: String) -> [String] {
        Self.strings(g_key_file_get_keys(file, group, nil, nil))
    }

    /// Wraps `g_key_file_get_string` (transfer full, freed with `g_free`): the value with
    /// key-file escapes (`\n`, `\s`...) decoded; `nil` when the key is absent.
    public func string(_ group: String, _ key: String) -> String? {
        guard let value = g_key_file_get_string(file, group, key, nil) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }

    private static func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let vector else { return [] }
        defer { g_strfreev(vector) }
        var out: [String] = []
        var index = 0
        while let item = vector[index] {
            out.append(String(cString: item))
            index += 1
        }
        return out
    }
}

/// Why a key file could not be read, in GLib's words.
public struct KeyFileError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
