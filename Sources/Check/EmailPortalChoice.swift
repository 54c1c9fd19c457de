#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MailtoRoute
import Outbox

/// `mailto-route portal enable | disable`: on xdg-desktop-portal 1.17 and later, the one
/// line of the user's portals.conf that gives mailto-route's backend the Email portal, and
/// taking it back out so that the file is byte for byte what it was. The file is the user's
/// own (`~/.config/xdg-desktop-portal/`), never the system's: nothing is left behind when
/// the package goes, and `unregister` disables too. What `enable` did is kept in the state
/// directory: `portal` (a key file: the file changed, whether `enable` made it, the line it
/// replaced) and the file as it was before and as `enable` left it.
public struct EmailPortalChoice: Sendable {
    /// `$XDG_STATE_HOME/mailto-route`.
    public let stateDirectory: String

    public init(stateDirectory: String) {
        self.stateDirectory = stateDirectory
    }

    public var statePath: String { stateDirectory + "/portal" }
    var beforePath: String { stateDirectory + "/portals.conf.before" }
    var afterPath: String { stateDirectory + "/portals.conf.after" }

    static let stateGroup = "portal"
    static let fileKey = "file"
    static let createdKey = "created"
    static let previousKey = "previous-line"
    /// The backend's name as the line gives it.
    static let backendKey = "backend"

    public enum Enabled: Sendable, Equatable {
        /// The line was set in `file`, which is a copy of `copiedFrom` (`nil`: the user's own
        /// file was changed, or a new one made, `created` says which).
        case set(file: String, copiedFrom: String?, created: Bool)
        /// `file` names mailto-route's backend for Email already: nothing was written.
        case already(file: String)
    }

    public enum Disabled: Sendable, Equatable {
        /// `file` is again byte for byte what it was before `enable`.
        case restored(file: String)
        /// `file`, which `enable` made, is gone.
        case removed(file: String)
        /// `file` was changed since `enable`: only the Email line was given back.
        case lineRestored(file: String)
        /// `file` is gone or no longer has the line: nothing to take back.
        case nothingLeft(file: String)
        /// `enable` set nothing (or `disable` ran since).
        case notEnabled
    }

    /// The file `enable` changed and has not taken back, `nil` when none.
    public var enabledFile: String? {
        guard let state = try? KeyFile.load(statePath) else { return nil }
        return state.string(Self.stateGroup, Self.fileKey)
    }

    /// Sets `org.freedesktop.impl.portal.Email=NAME` (NAME: the installed backend's) in the
    /// `[preferred]` group of `facts.enableTarget`, copying the portals.conf that is read when
    /// it is not the user's. Throws, changing nothing, where the portal would not read it
    /// (no portal, a version before 1.17) or the line would name no installed backend.
    public func enable(_ facts: CheckReport.EmailBackend) throws(DesktopError) -> Enabled {
        guard let executable = facts.executable else {
            throw DesktopError(.configuration, tr("xdg-desktop-portal is not installed (none of %@); nothing changed",
                                                  EmailBackends.executables.joined(separator: ", ")))
        }
        guard let version = facts.version else {
            throw DesktopError(.configuration, tr("cannot tell the version of %@ (%@); nothing changed",
                                                  executable, facts.versionProblem ?? "?"))
        }
        guard version.readsPortalsConf, let target = facts.enableTarget else {
            throw DesktopError(.configuration, tr("xdg-desktop-portal %@ reads no portals.conf: the .portal files installed in %@ "
                + "alone choose the Email backend; nothing changed", version, facts.portalsDirectory))
        }
        // 1.17.0 to 1.19.0 crash at start-up on a name with no .portal file (issue 1455).
        guard let ours = facts.offering.first(where: { $0.dbusName == EmailBackends.busName }) else {
            throw DesktopError(.configuration, tr("mailto-route's backend (mailtoroute.portal) is not installed in %@, and a "
                + "portals.conf that names it would make xdg-desktop-portal 1.17.0 to 1.19.0 crash; nothing changed",
                                                  facts.portalsDirectory))
        }
        let current = try read(target)
        if current == nil, let config = facts.config, config == target {
            throw DesktopError(.configuration, tr("%@ is gone since it was read; nothing changed", target))
        }
        if current != nil, PortalsConf.load(target) == nil {
            // The portal skips it (no [preferred], or not a key file): editing it would change nothing.
            throw DesktopError(.configuration, tr("%@ is not a portals.conf that xdg-desktop-portal reads (it needs a [preferred] "
                + "group in key-file syntax); correct or remove it, then run mailto-route portal enable again", target))
        }
        if let state = try loadState(), let file = state.string(Self.stateGroup, Self.fileKey), file != target {
            // The desktop changed since: the line leaves the other file first.
            _ = try disable()
        }
        let copiedFrom = current == nil ? facts.config : nil
        var source = Array("[\(PortalsConfEdit.group)]\n".utf8)
        if let current {
            source = current
        } else if let copiedFrom, let system = try read(copiedFrom) {
            source = system
        }
        let (edited, previous) = PortalsConfEdit.setting(EmailBackends.interface, to: ours.name, in: source)
        if let current, edited == current { return .already(file: target) }
        let state = try loadState() ?? KeyFile()
        let lastLeft = try read(afterPath)
        if state.string(Self.stateGroup, Self.fileKey) == nil || current != lastLeft {
            // First enable, or the file was changed since: what it is now is what disable gives back.
            state.set(target, Self.stateGroup, Self.fileKey)
            state.set(current == nil ? "true" : "false", Self.stateGroup, Self.createdKey)
            state.set(ours.name, Self.stateGroup, Self.backendKey)
            if let previous {
                state.set(String(decoding: previous, as: UTF8.self), Self.stateGroup, Self.previousKey)
            } else {
                state.removeKey(Self.stateGroup, Self.previousKey)
            }
            if let current { try write(current, to: beforePath, mode: 0o600) } else { try remove(beforePath) }
            try state.save(to: statePath, mode: 0o600)
        }
        let mode = try fileMode(target) ?? 0o644
        try write(edited, to: target, mode: mode)
        try write(edited, to: afterPath, mode: 0o600)
        return .set(file: target, copiedFrom: copiedFrom, created: current == nil)
    }

    /// Takes back what `enable` did: the file as it was, byte for byte, when nothing else
    /// changed it since (a file `enable` made is removed); else only the Email line.
    public func disable() throws(DesktopError) -> Disabled {
        guard let state = try loadState(), let file = state.string(Self.stateGroup, Self.fileKey) else { return .notEnabled }
        let result: Disabled
        if let current = try read(file) {
            if current == (try read(afterPath)) {
                if state.string(Self.stateGroup, Self.createdKey) == "true" {
                    try remove(file)
                    result = .removed(file: file)
                } else if let before = try read(beforePath) {
                    try write(before, to: file, mode: try fileMode(file) ?? 0o644)
                    result = .restored(file: file)
                } else {
                    result = .nothingLeft(file: file)
                }
            } else {
                let previous = state.string(Self.stateGroup, Self.previousKey).map { Array($0.utf8) }
                let name = state.string(Self.stateGroup, Self.backendKey) ?? "mailtoroute"
                let edited = PortalsConfEdit.restoring(EmailBackends.interface, from: name, to: previous, in: current)
                if edited == current {
                    result = .nothingLeft(file: file)
                } else {
                    try write(edited, to: file, mode: try fileMode(file) ?? 0o644)
                    result = .lineRestored(file: file)
                }
            }
        } else {
            result = .nothingLeft(file: file)
        }
        for path in [beforePath, afterPath, statePath] { try remove(path) }
        return result
    }

    // MARK: - Files

    private func loadState() throws(DesktopError) -> KeyFile? {
        try KeyFile.load(statePath)
    }

    private func read(_ path: String) throws(DesktopError) -> [UInt8]? {
        do {
            return try readFileIfExists(path)
        } catch {
            throw DesktopError(.configuration, tr("cannot read %@: %@", path, reason(error)))
        }
    }

    private func fileMode(_ path: String) throws(DesktopError) -> mode_t? {
        do {
            return try fileStatus(path).map { $0.st_mode & 0o7777 }
        } catch {
            throw DesktopError(.configuration, tr("cannot read %@: %@", path, reason(error)))
        }
    }

    /// Atomically (a temporary file renamed over it), making the missing directories.
    private func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws(DesktopError) {
        do {
            try makeDirectories(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
            try writeFileAtomically(bytes, to: path, mode: mode)
        } catch {
            throw DesktopError(.configuration, tr("cannot write %@: %@", path, reason(error)))
        }
    }

    /// The system's words for a failed call (the path is said once, by the caller).
    private func reason(_ error: any Error) -> String {
        (error as? OutboxError)?.errno.map(systemErrorText) ?? Failure(error, otherwise: .configuration).message
    }

    private func remove(_ path: String) throws(DesktopError) {
        if unlink(path) != 0, errno != ENOENT {
            throw DesktopError(.configuration, tr("cannot remove %@: %@", path, systemErrorText(errno)))
        }
    }
}
