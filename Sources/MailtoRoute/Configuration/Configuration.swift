import DesktopIntegration

/// The user's setup, read once per run (docs/design.md, Files): the config files (the
/// system's under `$XDG_CONFIG_DIRS`, then the user's, laid over each other with the keys
/// an administrator locked kept: `ConfigLayers`), their `[route]` group and account groups,
/// and every account of msmtp's own file. GNOME Online Accounts' accounts are the
/// Session's (`Session.accounts`): they are asked of the session bus, not read from files.
public struct Configuration: Sendable {
    /// A file that was read: its path and permission bits.
    public struct File: Sendable, Equatable {
        public var path: String
        public var mode: UInt32
    }

    public var route = RouteSettings()
    /// Every account the files set up, usable or with its mistake, in the documented order:
    /// the config files' account groups as they first appear (the system's, then the
    /// user's), then msmtp's accounts (its default first).
    public var accounts: [AccountSetup] = []
    /// The user's config file, when there is one.
    public var configFile: File?
    /// The system's config files that were found, the least important first.
    public var systemFiles: [File] = []
    /// msmtp's file, when one was read.
    public var msmtprcFile: File?
    /// Every setting of the config files with the file it comes from and whether it is
    /// locked (`check` shows them), in the order of their groups.
    public var settings: [Setting] = []
    /// The keys locked in each group (`locked=` of the system's files), `*` for all.
    public var lockedKeys: [String: Set<String>] = [:]
    /// What the layering has to say: values of the user's not taken because an
    /// administrator locked them, `locked=` where it is not read.
    public var notices: [String] = []
    /// The way the chooser's Always kept for each application that asked through the Email
    /// portal (`always=` in `[portal APPID]`), by its app id.
    public var portalWays: [String: String] = [:]

    /// An account set up in the files, whether or not it can send.
    public var hasAccount: Bool { !accounts.isEmpty }

    /// A file as read: its path, then its text and permission bits, or why it could not
    /// be read.
    public typealias Text = (path: String, contents: Result<(text: String, mode: UInt32), ConfigurationError>)

    /// Reads the system's config files, the user's and msmtp's; each file is opened once.
    public static func load(_ paths: Paths) -> Configuration {
        Configuration(system: paths.systemConfigFiles.reversed().compactMap(read), config: read(paths.configFile),
                      defaultCAFile: paths.defaultCAFile) {
            paths.msmtprcFiles.lazy.compactMap(read).first
        }
    }

    /// From texts: `system` are the system's config files, the least important first;
    /// `config` is the user's; `msmtprc` gives msmtp's file. `defaultCAFile`: the trust
    /// anchors of an account that names none (`SSL_CERT_FILE`).
    public init(system: [Text] = [], config: Text?, defaultCAFile: String? = nil, msmtprc: () -> Text? = { nil }) {
        var layers: [ConfigLayers.Layer] = []
        var unreadable: [(path: String, mistake: ConfigurationError)] = []
        for (index, text) in (system + (config.map { [$0] } ?? [])).enumerated() {
            let isSystem = index < system.count
            switch text.contents {
            case .success((let contents, let mode)):
                let file = File(path: text.path, mode: mode)
                if isSystem { systemFiles.append(file) } else { configFile = file }
                do {
                    layers.append(.init(path: text.path, mode: mode, file: try KeyFile.parse(contents, path: text.path),
                                        isSystem: isSystem))
                } catch {
                    unreadable.append((text.path, ConfigurationError(error.message)))
                }
            case .failure(let mistake):
                unreadable.append((text.path, mistake))
            }
        }
        let merged = ConfigLayers(layers: layers)
        let modes = Dictionary(layers.map { ($0.path, $0.mode) }, uniquingKeysWith: { $1 })
        let route = merged.group("route")
        self.route = RouteSettings(route.group)
        notices += route.notices
        settings += route.group.settings
        lockedKeys["route"] = merged.lockedKeys(in: "route")
        for groupName in merged.groupNames where groupName.hasPrefix(Self.portalGroupPrefix) {
            let app = String(groupName.dropFirst(Self.portalGroupPrefix.count)).trimmingSpaces()
            if let way = merged.group(groupName).group.value("always"), !app.isEmpty { portalWays[app] = way }
        }
        for groupName in merged.groupNames {
            guard let name = Self.accountName(ofGroup: groupName) else { continue }
            let (group, groupNotices) = merged.group(groupName)
            notices += groupNotices
            settings += group.settings
            lockedKeys[groupName] = merged.lockedKeys(in: groupName)
            let origin = AccountSetup.Origin.config(path: group.file)
            guard Self.isValidName(name) else {
                accounts.append(AccountSetup(name: name, origin: origin, account: .failure(ConfigurationError(
                    "\(group.file): [\(groupName)]: an account's name is letters, digits, '.', '-', '_' and '@', without ':'"))))
                continue
            }
            if accounts.contains(where: { $0.name == name }) {
                accounts.append(AccountSetup(name: name, origin: origin, account: .failure(ConfigurationError(
                    "\(group.file): [\(groupName)] is the account '\(name)' a second time ([account] is named 'default')"))))
                continue
            }
            accounts.append(AccountSetup(name: name, origin: origin, account: Result { () throws(ConfigurationError) in
                try Account(group, name: name, modes: modes, defaultCAFile: defaultCAFile)
            }))
        }
        // A file that does not read holds nothing anyone can trust: links are handed off
        // until it is fixed, and it is an account with its mistake, so that a script that
        // asked to send learns why nothing was sent.
        for (path, mistake) in unreadable {
            self.route = RouteSettings(unreadable: mistake, path: path)
            accounts.insert(AccountSetup(name: "default", origin: .config(path: path), account: .failure(mistake)), at: 0)
        }
        guard let msmtprc = msmtprc() else { return }
        switch msmtprc.contents {
        case .success((let text, let mode)):
            msmtprcFile = File(path: msmtprc.path, mode: mode)
            do {
                accounts += try Msmtprc.parse(text, path: msmtprc.path, mode: mode, caFile: defaultCAFile).map {
                    AccountSetup(name: $0.name, origin: .msmtprc(path: msmtprc.path), account: $0.account)
                }
            } catch {
                accounts.append(AccountSetup(name: "msmtp", origin: .msmtprc(path: msmtprc.path), account: .failure(error)))
            }
        case .failure(let mistake):
            accounts.append(AccountSetup(name: "msmtp", origin: .msmtprc(path: msmtprc.path), account: .failure(mistake)))
        }
    }

    /// `[portal APPID]`: what the chooser kept for an application of the Email portal.
    public static let portalGroupPrefix = "portal "

    /// `default` for `[account]`, `NAME` for `[account NAME]`; `nil` for any other group.
    static func accountName(ofGroup group: String) -> String? {
        if group == "account" { return "default" }
        guard group.hasPrefix("account ") else { return nil }
        return String(group.dropFirst("account ".count)).trimmingSpaces()
    }

    /// Names that never collide with msmtp's (`msmtp:`) and GNOME Online Accounts' (`goa:`),
    /// and read the same on a command line.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@")
        }
    }

    /// A file's text and mode; `nil` when it does not exist.
    private static func read(_ path: String) -> Text? {
        do {
            guard let (bytes, mode) = try readFileAndMode(path, limit: 1024 * 1024) else { return nil }
            return (path, .success((String(decoding: bytes, as: UTF8.self), UInt32(mode))))
        } catch {
            return (path, .failure(ConfigurationError(Failure(error, otherwise: .configuration).message)))
        }
    }
}

/// One account as it is set up, usable or not: its name, where it comes from, and the
/// account or its mistake.
public struct AccountSetup: Sendable {
    /// Where an account comes from.
    public enum Origin: Sendable, Equatable {
        /// An account group of the config files; `path` is the file to mend it in.
        case config(path: String)
        /// msmtp's file.
        case msmtprc(path: String)
        /// GNOME Online Accounts.
        case onlineAccounts(OnlineMailAccount)
    }

    public var name: String
    public var origin: Origin
    public var account: Result<Account, ConfigurationError>

    public init(name: String, origin: Origin, account: Result<Account, ConfigurationError>) {
        self.name = name
        self.origin = origin
        self.account = account
    }

    /// Where it comes from, as a person reads it: a file, or `GNOME Online Accounts (Google)`.
    public var originText: String {
        switch origin {
        case .config(let path), .msmtprc(let path): path
        case .onlineAccounts(let online): "GNOME Online Accounts (\(online.providerName.isEmpty ? online.providerType : online.providerName))"
        }
    }

    /// `config`, `msmtprc` or `goa`, as `check --json` says it.
    public var originKind: String {
        switch origin {
        case .config: "config"
        case .msmtprc: "msmtprc"
        case .onlineAccounts: "goa"
        }
    }
}
