#if canImport(Glibc)
import Glibc
#endif

/// Writes a new file that holds `bytes` in full, or nothing: the bytes go to a temporary
/// name in the same directory, are synced, the file is renamed over `path`, and the
/// directory is synced (docs/design.md, "Nothing lost"). A failure removes the temporary file,
/// so a full disk or a read-only directory never leaves half a file under any name a
/// reader looks at.
package func writeFileAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
    let directory = parentDirectory(of: path)
    let temporary = directory + "/.tmp-\(processID)-" + EntryID.randomSuffix()
    do {
        try writeNewFile(bytes, at: temporary, mode: mode)
        try renameFile(temporary, to: path)
    } catch {
        unlink(temporary)
        throw error
    }
    try syncDirectory(directory)
}

/// Creates `path` (which must not exist), writes `bytes`, syncs and closes it. The caller
/// renames it into place and syncs the directory.
package func writeNewFile(_ bytes: [UInt8], at path: String, mode: mode_t = 0o600) throws {
    let file = try openFile(path, O_WRONLY | O_CREAT | O_EXCL, mode: mode, operation: "cannot create")
    try file.writeAll(bytes)
    try file.sync()
    try file.close()
}
