import DesktopIntegration
import Outbox

// The chooser's **Always**: the way a person chose for every clicked link, written as
// `always=` in `[route]` of their own config file, where they can read it, and forgotten
// with `mailto-route route reset` or the sheet's "Ask How to Send Each Time".

extension Session {
    /// Whether **Always** can be written: not when an administrator locked `always=` (or all
    /// of `[route]`) in a system file, where the user's value would not be used.
    public var canRememberWay: Bool {
        let locked = configuration.lockedKeys["route"] ?? []
        return !locked.contains("always") && !locked.contains("*")
    }

    /// Writes `way` as `always=` in `[route]` of the user's config file (for `application`,
    /// an Email portal caller's app id: in `[portal APPID]`): from the next click (or that
    /// application's next request) on, it goes that way without the chooser. The file keeps
    /// its comments, its other settings and its permissions (a new one is its owner's alone).
    public func rememberWay(_ way: Way, forApplication application: String? = nil) throws(ConfigurationError) {
        guard let id = way.id else { throw ConfigurationError(tr("setting up sending is not a way to remember")) }
        guard canRememberWay else {
            throw ConfigurationError(tr("always= in [route] is locked by the administrator; %@ cannot change it", paths.configFile))
        }
        let group = application.map { Configuration.portalGroupPrefix + $0 } ?? "route"
        try editConfigFile { $0.set(id, group, "always") }
    }

    /// Removes every `always=` the chooser wrote from the user's config file (`[route]`'s, and
    /// each `[portal APPID]` group, which goes when nothing else is in it): clicks and
    /// applications ask again. What was forgotten (`always=WAY`, `always=WAY for APPID`);
    /// empty when nothing was (nothing is written then).
    @discardableResult
    public func forgetWay() throws(ConfigurationError) -> [String] {
        var forgotten: [String] = []
        try editConfigFile { file in
            if let way = file.string("route", "always") {
                forgotten.append("always=\(way)")
                file.removeKey("route", "always")
            }
            for group in file.groups where group.hasPrefix(Configuration.portalGroupPrefix) {
                guard let way = file.string(group, "always") else { continue }
                forgotten.append("always=\(way) for \(group.dropFirst(Configuration.portalGroupPrefix.count))")
                file.removeKey(group, "always")
                if file.keys(in: group).isEmpty { file.removeGroup(group) }
            }
            return !forgotten.isEmpty
        }
        return forgotten
    }

    /// Where `always=` comes from when it is not the user's file (an administrator's), so
    /// that `route reset` says why it stays.
    public var wayFromSystemFile: String? {
        guard let setting = configuration.settings.first(where: { $0.group == "route" && $0.key == "always" }),
              setting.file != paths.configFile else { return nil }
        return setting.file
    }

    /// Reads the user's config file as it is now (another program may have changed it since
    /// this run read it), lets `change` edit it, and writes it back whole and atomically,
    /// with its mode; `change` returns `false` when there is nothing to write.
    func editConfigFile(_ change: (KeyFile) -> Bool) throws(ConfigurationError) {
        let path = paths.configFile
        do {
            let existing = try readFileAndMode(path, limit: 1024 * 1024)
            let file = try existing.map { try KeyFile.parse(String(decoding: $0.bytes, as: UTF8.self), path: path) } ?? KeyFile()
            guard change(file) else { return }
            try makeDirectories(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
            // A file that holds password= must stay its owner's alone (docs/design.md, Files).
            try writeFileAtomically(Array(file.text.utf8), to: path, mode: (existing?.mode ?? 0o600) & 0o7777)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(tr("cannot write %@: %@", path, Failure(error, otherwise: .configuration).message))
        }
    }

    func editConfigFile(_ change: (KeyFile) -> Void) throws(ConfigurationError) {
        try editConfigFile { (file: KeyFile) -> Bool in
            change(file)
            return true
        }
    }
}
