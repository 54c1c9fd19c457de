#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// Writes a new file that holds `bytes` in full, or nothing: the bytes go to a temporary
/// name in the same directory, are synced, the file is renamed over `path`, and the
/// directory is synced (docs/design.md, "Nothing lost"). A failure removes the temporary file,
/// so a full disk or a read-only directory never leaves half a file under any name a
/// reader looks at.
///
/// `durable: false` leaves out both syncs, for a file that is a convenience, which a crash
/// may set back to an earlier state (or, on a file system that does not order a rename
/// after its data, to nothing) at no cost but the convenience: never a message, nor a
/// record that keeps one from being sent twice. Each sync waits for the disk, which on a
/// busy one took up to 8 ms (strace -T, a send beside a build).
package func writeFileAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, durable: Bool = true) throws {
    let directory = parentDirectory(of: path)
    let temporary = directory + "/.tmp-\(processID)-" + EntryID.randomSuffix()
    do {
        try writeNewFile(bytes, at: temporary, mode: mode, sync: durable)
        try renameFile(temporary, to: path)
    } catch {
        unlink(temporary)
        throw error
    }
    if durable { try syncDirectory(directory) }
}

/// Creates `path` (which must not exist), writes `bytes`, syncs (unless `sync` is false)
/// and closes it. The caller renames it into place and syncs the directory.
package func writeNewFile(_ bytes: [UInt8], at path: String, mode: mode_t = 0o600, sync: Bool = true) throws {
    let file = try openFile(path, O_WRONLY | O_CREAT | O_EXCL, mode: mode, operation: tr("cannot create"))
    try file.writeAll(bytes)
    if sync { try file.sync() }
    try file.close()
}
