#if canImport(Glibc)
import Glibc
#endif
public import MailtoCore

/// Everything that can go wrong in the outbox, the drafts or the outcome log, classified
/// for the router and the command line: what was being done, on which path, and the
/// system's own words (strerror) when a system call failed.
public struct OutboxError: ClassifiedError, Equatable, Sendable {
    public var kind: ErrorKind
    /// What failed, in words: "cannot write", "no outbox entry".
    public var message: String
    /// The file or directory concerned, when there is one.
    public var path: String?
    /// The errno of the failed system call, when one failed.
    public var errno: Int32?

    public init(_ kind: ErrorKind, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// `cannot write /home/jane/.local/state/mailto-route/outbox/…: No space left on device`
    public var description: String {
        var text = message
        if let path { text += " \(path)" }
        if let errno { text += ": " + systemErrorText(errno) }
        return text
    }

    /// The one place an errno becomes a typed error. The kind says what the user can do:
    /// wait (a full disk, an interrupted device), fix their setup (permissions, a
    /// read-only file system), or nothing (anything else the kernel refuses for good).
    static func system(_ operation: String, path: String, errno code: Int32) -> OutboxError {
        let kind: ErrorKind
        switch code {
        case ENOSPC, EDQUOT, EIO, EAGAIN, EBUSY, ENOMEM, EMFILE, ENFILE, EINTR, ETIMEDOUT:
            kind = .transient
        case EACCES, EPERM, EROFS, ENOTDIR, ELOOP, ENAMETOOLONG:
            kind = .configuration
        default:
            kind = .permanent
        }
        return OutboxError(kind, operation, path: path, errno: code)
    }

}

extension OutboxError {
    /// Any error met while storing, as an `OutboxError` (it nearly always is one).
    init(_ error: any Error) {
        if let error = error as? OutboxError {
            self = error
        } else {
            self.init(.permanent, "\(error)")
        }
    }
}
