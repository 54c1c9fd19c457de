#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration

/// Files a mail program reads after mailto-route has exited: attachments given as bytes,
/// and bodies too long for a URL. They live under `directory`, the run's
/// `$XDG_STATE_HOME/mailto-route/handoff/` (`StorageLocations.handoffDirectory`, readable by
/// the user only), one directory per handoff, and are left there, since the program reads
/// them later; a directory older than `keptSeconds` is removed at the next handoff that
/// writes files.
struct HandoffFiles {
    let directory: String
    /// A week: long past any mail program's reading a file it was started with.
    static let keptSeconds = 7 * 24 * 3600

    /// Absolute paths of the attachments; bytes are written to a file of their own,
    /// under their file name, in a fresh directory. A file whose name is not UTF-8 (a
    /// `LocalPath` in its `file://` form) is given as a link to it, in a fresh directory,
    /// named as the name is shown (U+FFFD for each such byte): a mail program's command
    /// line is text here, and most programs read a path, not a URI.
    func attachmentPaths(_ attachments: [Attachment]) throws -> [String] {
        try attachments.map { attachment in
            switch attachment.content {
            case .file(let path) where LocalPath.isEscaped(path):
                let link = try freshDirectory() + "/" + Self.safeName(attachment.fileName)
                try makeSymbolicLink(to: path, at: link)
                return link
            case .file(let path):
                return Self.absolute(path)
            case .data(let bytes):
                let path = try freshDirectory() + "/" + Self.safeName(attachment.fileName)
                try writeNewFile(bytes, at: path)
                return path
            }
        }
    }

    /// The last component of `name`, or `attachment` when that is no name of a file.
    private static func safeName(_ name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? ""
        return last.isEmpty || last == "." || last == ".." ? "attachment" : last
    }

    /// A new file holding `body`, for the clients that read a body from a file.
    func bodyFile(_ body: String) throws -> String {
        let path = try freshDirectory() + "/body.txt"
        try writeNewFile(Array(body.utf8), at: path)
        return path
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    private func freshDirectory() throws -> String {
        let made = try makeTemporaryDirectory(in: directory)
        removeOldDirectories()
        return made
    }

    /// Removes the handoff directories (each holds files only) older than `keptSeconds`;
    /// one that cannot be removed is left for the next time.
    private func removeOldDirectories() {
        let oldest = time(nil) - Self.keptSeconds
        for name in (try? directoryNames(directory)) ?? [] {
            let path = directory + "/" + name
            guard let status = try? fileStatus(path), status.st_mode & S_IFMT == S_IFDIR, status.st_mtim.tv_sec < oldest
            else { continue }
            try? removeTree(path)
        }
    }
}
