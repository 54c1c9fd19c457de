#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration

/// Files a mail program reads after mailto-route has exited: attachments given as bytes,
/// and bodies too long for a URL. They live under `$XDG_STATE_HOME/mailto-route/handoff/`
/// (readable by the user only) and are left there: the program reads them later.
enum HandoffFiles {
    static var directory: String { XDGDirectories.stateHome + "/mailto-route/handoff" }

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
        var template = Array((directory + "/XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw DesktopError(.configuration, "cannot create a directory in \(directory): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
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
