#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration

/// Files a mail program reads after mailto-route has exited: attachments given as bytes,
/// and bodies too long for a URL. They live under `$XDG_STATE_HOME/mailto-route/handoff/`
/// (readable by the user only), one directory per handoff, and are left there, since the
/// program reads them later; a directory older than `keptSeconds` is removed at the next
/// handoff that writes files.
enum HandoffFiles {
    static var directory: String { XDGDirectories.stateHome + "/mailto-route/handoff" }
    /// A week: long past any mail program's reading a file it was started with.
    static let keptSeconds = 7 * 24 * 3600

    /// Absolute paths of the attachments; bytes are written to a file of their own,
    /// under their file name, in a fresh directory.
    static func attachmentPaths(_ attachments: [Attachment]) throws -> [String] {
        try attachments.map { attachment in
            switch attachment.content {
            case .file(let path):
                return absolute(path)
            case .data(let bytes):
                let folder = try freshDirectory()
                let name = attachment.fileName.split(separator: "/").last.map(String.init) ?? "attachment"
                let path = folder + "/" + (name.isEmpty || name == "." || name == ".." ? "attachment" : name)
                try write(bytes, to: path)
                return path
            }
        }
    }

    /// A new file holding `body`, for the clients that read a body from a file.
    static func bodyFile(_ body: String) throws -> String {
        let path = try freshDirectory() + "/body.txt"
        try write(Array(body.utf8), to: path)
        return path
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    private static func freshDirectory() throws -> String {
        try XDGDirectories.makeDirectory(directory)
        removeOldDirectories()
        var template = Array((directory + "/XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw DesktopError(.configuration, "cannot create a directory in \(directory): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// Removes the handoff directories (each holds files only) older than `keptSeconds`;
    /// one that cannot be removed is left for the next time.
    private static func removeOldDirectories() {
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        let oldest = time(nil) - keptSeconds
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            let path = directory + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_mtim.tv_sec < oldest,
                  let files = opendir(path)
            else { continue }
            while let file = readdir(files) {
                let fileName = withUnsafeBytes(of: file.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if fileName != ".", fileName != ".." { unlink(path + "/" + fileName) }
            }
            closedir(files)
            rmdir(path)
        }
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DesktopError(.configuration, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                throw DesktopError(.configuration, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}
