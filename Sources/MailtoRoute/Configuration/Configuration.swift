import DesktopIntegration

/// The user's setup, read once per run (docs/design.md, Files): the config file's `[route]`
/// group and the account, from its `[account]` group or else from msmtp's own file.
public struct Configuration: Sendable {
    /// A file that was read: its path and permission bits.
    public struct File: Sendable, Equatable {
        public var path: String
        public var mode: UInt32
    }

    public var route = RouteSettings()
    /// The account that sends, or its mistake; `nil` when none is set up anywhere.
    public var account: Result<Account, ConfigurationError>?
    /// The config file, when there is one.
    public var configFile: File?
    /// The file the account comes from (the config file, or msmtp's), also when it has a
    /// mistake; `nil` when there is none.
    public var accountFile: File?

    /// An account set up, whether or not it can send.
    public var hasAccount: Bool { account != nil }

    /// A file as read: its path, then its text and permission bits, or why it could not
    /// be read.
    public typealias Text = (path: String, contents: Result<(text: String, mode: UInt32), ConfigurationError>)

    /// Reads the config file and, unless it has an `[account]` group, msmtp's file; each
    /// file is opened once.
    public static func load(_ paths: Paths) -> Configuration {
        Configuration(config: read(paths.configFile)) {
            paths.msmtprcFiles.lazy.compactMap(read).first
        }
    }

    /// From texts: `config` is the config file, `msmtprc` gives msmtp's file, and is
    /// asked only when the config file sets up no account.
    public init(config: Text?, msmtprc: () -> Text? = { nil }) {
        var groupAccount = false
        if let config {
            switch config.contents {
            case .success((let text, let mode)):
                configFile = File(path: config.path, mode: mode)
                do {
                    let file = try KeyFile.parse(text, path: config.path)
                    route = RouteSettings(file, path: config.path)
                    if file.groups.contains("account") {
                        groupAccount = true
                        accountFile = configFile
                        account = Result { () throws(ConfigurationError) in try Account(file, path: config.path, mode: mode) }
                    }
                } catch {
                    // A file that does not parse holds no account anyone can trust.
                    let mistake = ConfigurationError(error.message)
                    route = RouteSettings(unreadable: mistake, path: config.path)
                    groupAccount = true
                    accountFile = configFile
                    account = .failure(mistake)
                }
            case .failure(let mistake):
                route = RouteSettings(unreadable: mistake, path: config.path)
                groupAccount = true
                account = .failure(mistake)
            }
        }
        // Without an [account] group, msmtp's default account sends, whatever [route] says.
        guard !groupAccount, let msmtprc = msmtprc() else { return }
        switch msmtprc.contents {
        case .success((let text, let mode)):
            accountFile = File(path: msmtprc.path, mode: mode)
            do {
                account = try Msmtprc.parse(text, path: msmtprc.path, mode: mode).map { .success($0) }
            } catch {
                account = .failure(error)
            }
        case .failure(let mistake):
            account = .failure(mistake)
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
