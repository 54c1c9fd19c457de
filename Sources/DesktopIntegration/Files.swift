internal import CGIO
#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// Whole-file reads and atomic writes through GLib, for the small files of registration.
enum Files {
    /// Wraps `g_file_get_contents` (transfer full); `nil` when the file does not exist.
    static func read(_ path: String) throws(DesktopError) -> [UInt8]? {
        var contents: UnsafeMutablePointer<gchar>?
        var length: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        if g_file_get_contents(path, &contents, &length, &error) != 0 {
            defer { g_free(contents) }
            guard let contents else { return [] }
            return contents.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                Array(UnsafeBufferPointer(start: $0, count: Int(length)))
            }
        }
        try throwUnlessMissing(error, tr("cannot read %@", path))
        return nil
    }

    /// Wraps `g_file_set_contents_full` (write to a temporary file, fsync, rename), with
    /// `mode` for a new file.
    static func write(_ bytes: [UInt8], to path: String, mode: Int32 = 0o644) throws(DesktopError) {
        var error: UnsafeMutablePointer<GError>?
        let flags = GFileSetContentsFlags(rawValue: G_FILE_SET_CONTENTS_CONSISTENT.rawValue | G_FILE_SET_CONTENTS_DURABLE.rawValue)
        let ok = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: gchar.self, capacity: buffer.count) {
                    g_file_set_contents_full(path, $0, gssize(buffer.count), flags, mode, &error)
                }
            } ?? g_file_set_contents_full(path, "", 0, flags, mode, &error)
        }
        if ok == 0 {
            throw takeError(error, .configuration, tr("cannot write %@", path))
        }
    }

    /// Wraps `unlink(2)` (`g_unlink` is a macro for it); a file that is already gone is not
    /// an error.
    static func remove(_ path: String) throws(DesktopError) {
        if unlink(path) != 0, errno != ENOENT {
            throw DesktopError(.configuration, tr("cannot remove %@: %@", path, systemErrorText(errno)))
        }
    }

    /// The directory part of `path`.
    static func directory(of path: String) -> String {
        takeString(g_path_get_dirname(path)) ?? "."
    }

    /// The last component of `path`.
    static func name(of path: String) -> String {
        takeString(g_path_get_basename(path)) ?? path
    }
}
