import MailtoRoute
import RouteFakes
import Testing

/// The config files (the system's and the user's) and msmtp's, read from text in-process.
@Suite struct ConfigurationTests {
    static let userFile = "/h/.config/mailto-route/config"
    static let systemFile = "/etc/xdg/mailto-route/config"

    static func configuration(_ config: String?, mode: UInt32 = 0o600, system: String? = nil, systemMode: UInt32 = 0o644,
                              msmtprc: String? = nil, msmtprcMode: UInt32 = 0o600) -> Configuration {
        Configuration(system: system.map { [(systemFile, .success(($0, systemMode)))] } ?? [],
                      config: config.map { (userFile, .success(($0, mode))) }) {
            msmtprc.map { ("/h/.msmtprc", .success(($0, msmtprcMode))) }
        }
    }

    /// The account a run sends from when none is chosen, with no GNOME Online Accounts.
    static func defaultAccount(_ configuration: Configuration) -> Result<AccountSetup, ConfigurationError>? {
        let paths = Paths(home: "/h", configHome: "/h/.config", dataHome: "/h/.local/share", stateHome: "/h/.local/state")
        let world = FakeServices()
        return Session(paths: paths, configuration: configuration, services: world.services).defaultAccountSetup
    }

    @Test func theAccountGroupIsReadWithItsRouteSettings() throws {
        let configuration = Self.configuration("""
            [account]
            from=Jane <jane@example.org>
            host=smtp.example.org
            user=jane
            password-command=pass smtp
            [route]
            policy=direct
            handler=thunderbird.desktop
            """)
        let setup = try #require(configuration.accounts.first)
        let account = try setup.account.get()
        #expect(setup.name == "default")
        #expect(account.from.address == "jane@example.org")
        #expect(account.server.address == "smtp.example.org:587")
        #expect(account.server.security == .starttls)
        #expect(account.password == .command("pass smtp"))
        #expect(configuration.route.policy == .direct)
        #expect(configuration.route.handler == "thunderbird.desktop")
        #expect(setup.origin == .config(path: Self.userFile))
    }

    /// `imap-host=` names where a webmail handoff stores its draft: TLS on 993 unless said
    /// otherwise, the SMTP login unless `imap-user=` names another, the CA file shared.
    @Test func anAccountsIMAPServerIsReadWithItsDefaults() throws {
        let configuration = Self.configuration("""
            [account]
            from=Jane <jane@example.org>
            host=smtp.example.org
            user=jane
            ca-file=/
            imap-host=imap.example.org
            [account other]
            from=Jane <jane@example.org>
            host=smtp.example.org
            imap-host=imap.example.org
            imap-port=143
            imap-user=jane-imap
            [account none]
            from=Jane <jane@example.org>
            host=smtp.example.org
            """)
        let accounts = try configuration.accounts.map { try $0.account.get() }
        let imap = try #require(accounts[0].imap)
        #expect(imap.address == "imap.example.org:993")
        #expect(imap.security == .tls)
        #expect(imap.user == "jane")
        #expect(imap.caFile == "/")
        let other = try #require(accounts[1].imap)
        #expect(other.address == "imap.example.org:143" && other.security == .starttls && other.user == "jane-imap")
        #expect(accounts[2].imap == nil)
    }

    @Test(arguments: [
        ("imap-port=993", "/h/.config/mailto-route/config: imap-port needs imap-host="),
        ("imap-host=imap.example.org\nimap-security=ssl", "/h/.config/mailto-route/config: imap-security=ssl: must be tls, starttls or none"),
        ("imap-host=imap.example.org\nimap-port=0", "/h/.config/mailto-route/config: imap-port=0: must be a number from 1 to 65535"),
        ("imap-host=imap.example.org\nimap-security=none", "/h/.config/mailto-route/config: security=none would send"),
    ])
    func aMistakeInTheIMAPKeysIsNamed(lines: String, message: String) throws {
        let configuration = Self.configuration("[account]\nfrom=jane@example.org\nhost=smtp.example.org\n" + lines + "\n")
        let setup = try #require(configuration.accounts.first)
        #expect(throws: ConfigurationError.self) { try setup.account.get() }
        if case .failure(let error) = setup.account { #expect(error.message.hasPrefix(message), "\(error.message)") }
    }

    /// msmtp-like named accounts beside the unnamed one, and `default=` choosing among them.
    /// `undo-send=` in [route] (5 by default, 0 off) and each account's `signature=`, its
    /// `\n` a line break as GLib's key files read it.
    @Test func undoSendAndEachAccountsSignatureAreRead() throws {
        let configuration = Self.configuration("""
            [account]
            from=Jane <jane@example.org>
            host=smtp.example.org
            signature=Jane Doe\\nExample Org
            [account work]
            from=Jane <jane@work.example>
            host=smtp.work.example
            [route]
            undo-send=0
            """)
        #expect(configuration.route.undoSeconds == 0)
        #expect(configuration.route.error == nil)
        let accounts = try configuration.accounts.map { try $0.account.get() }
        #expect(accounts.map(\.signature) == ["Jane Doe\nExample Org", nil])
        #expect(Self.configuration("[route]\npolicy=ask\n").route.undoSeconds == 5)
        let wrong = Self.configuration("[route]\nundo-send=soon\n").route
        #expect(wrong.undoSeconds == 5, "a mistake keeps Undo")
        #expect(wrong.error?.message.contains("undo-send=soon") == true, "\(String(describing: wrong.error))")
        let missing = Self.configuration("""
            [account]
            from=Jane <jane@example.org>
            host=smtp.example.org
            signature-file=/nonexistent/signature.txt
            """)
        #expect(throws: ConfigurationError.self) { try missing.accounts.first?.account.get() }
    }

    @Test func namedAccountsAreReadInOrderAndDefaultChoosesOne() throws {
        let text = """
            [account]
            from=Jane <jane@example.org>
            host=smtp.example.org
            [account work]
            from=Jane Doe <jane.doe@work.example>
            host=smtp.work.example
            port=465
            """
        let configuration = Self.configuration(text)
        #expect(configuration.accounts.map(\.name) == ["default", "work"])
        let work = try configuration.accounts[1].account.get()
        #expect(work.server.security == .tls)
        #expect(try Self.defaultAccount(configuration)?.get().name == "default", "the first, without default=")

        let chosen = Self.configuration(text + "\n[route]\ndefault=work\n")
        #expect(try Self.defaultAccount(chosen)?.get().name == "work")
        let byAddress = Self.configuration(text + "\n[route]\ndefault=JANE.DOE@work.example\n")
        #expect(try Self.defaultAccount(byAddress)?.get().name == "work", "default= may be an address")
    }

    /// `default=` that names no account never falls back to another: a message would go out
    /// from an address the user did not choose.
    @Test func aDefaultThatNamesNoAccountIsAMistakeNotAFallback() {
        let configuration = Self.configuration("[account]\nfrom=a@x.example\nhost=h.example\n[route]\ndefault=gone\n")
        guard case .failure(let mistake)? = Self.defaultAccount(configuration) else {
            Issue.record("default=gone chose an account")
            return
        }
        #expect(mistake.message.contains("default=gone in [route] names no account (they are: default)"))
    }

    @Test func everyMsmtpAccountIsAnAccountItsDefaultFirst() throws {
        let configuration = Self.configuration("[route]\nhandler=x.desktop\n", msmtprc: """
            defaults
            tls on
            account home
            host smtp.home.example
            from me@home.example
            account work
            host smtp.work.example
            from me@work.example
            account default : work
            """)
        #expect(configuration.accounts.map(\.name) == ["msmtp:work", "msmtp:home"])
        let account = try configuration.accounts[0].account.get()
        #expect(account.from.address == "me@work.example")
        #expect(account.server.address == "smtp.work.example:25")
        #expect(configuration.route.handler == "x.desktop")
        #expect(configuration.accounts[0].origin == .msmtprc(path: "/h/.msmtprc"))
    }

    /// msmtp itself refuses to guess among several accounts with none the default; as a
    /// list of accounts, the first is the default (docs/configuration.md's order).
    @Test func msmtpWithSeveralAccountsAndNoDefaultOffersThemAllTheFirstAsDefault() throws {
        let configuration = Self.configuration(nil, msmtprc: "account a\nhost h\nfrom a@x\ntls on\naccount b\nhost h\nfrom b@x\ntls on\n")
        #expect(configuration.accounts.map(\.name) == ["msmtp:a", "msmtp:b"])
        #expect(try Self.defaultAccount(configuration)?.get().name == "msmtp:a")
    }

    @Test func theConfigFilesAccountsComeBeforeMsmtps() {
        let configuration = Self.configuration("[account]\nfrom=a@x.example\nhost=h.example\n",
                                               msmtprc: "account only\nhost h.example\nfrom o@x.example\ntls on\n")
        #expect(configuration.accounts.map(\.name) == ["default", "msmtp:only"])
    }

    @Test func aPasswordInAFileOthersCanReadIsRefused() {
        let configuration = Self.configuration("[account]\nfrom=a@x.example\nhost=h.example\npassword=hunter2\n", mode: 0o644)
        guard case .failure(let mistake)? = configuration.accounts.first?.account else {
            Issue.record("a readable password was taken")
            return
        }
        #expect(mistake.message.contains("mode 644"))
        #expect(!mistake.message.contains("hunter2"))
    }

    @Test func anUnknownPolicyHandsLinksOffAndKeepsTheHandler() {
        let configuration = Self.configuration("[route]\npolicy=always\nhandler=evolution.desktop\n")
        #expect(configuration.route.policy == .handoff)
        #expect(configuration.route.handler == "evolution.desktop")
        #expect(configuration.route.error?.message.contains("policy=always") == true)
    }

    @Test func aFileThatDoesNotParseIsAMistakeOfBothGroups() {
        let configuration = Self.configuration("[account\nfrom=x\n")
        #expect(configuration.route.policy == .handoff)
        if case .failure? = configuration.accounts.first?.account {} else { Issue.record("a broken file gave an account") }
    }

    @Test func noFilesMeansNoAccount() {
        let configuration = Self.configuration(nil)
        #expect(configuration.accounts.isEmpty)
        #expect(!configuration.hasAccount)
        #expect(Self.defaultAccount(configuration) == nil)
    }

    @Test(arguments: ["[account my work]", "[account a:b]", "[account ]"])
    func anAccountNameIsOneWordWithoutAColon(_ group: String) {
        let configuration = Self.configuration("\(group)\nfrom=a@x.example\nhost=h.example\n")
        guard case .failure(let mistake)? = configuration.accounts.first?.account else {
            Issue.record("\(group) was taken")
            return
        }
        #expect(mistake.message.contains("an account's name is"), "\(mistake)")
    }

    // MARK: - Fleet defaults: the system's file below the user's

    /// The system's file gives what the user's does not; the user's wins where it gives
    /// the same key, and each value knows its file.
    @Test func theUsersFileIsLaidOverTheSystems() throws {
        let configuration = Self.configuration("[route]\npolicy=ask\n", system: """
            [route]
            policy=handoff
            handler=evolution.desktop
            [account corp]
            host=smtp.corp.example
            port=587
            """)
        #expect(configuration.route.policy == .ask)
        #expect(configuration.route.handler == "evolution.desktop")
        #expect(configuration.settings.first { $0.key == "policy" }?.file == Self.userFile)
        #expect(configuration.settings.first { $0.key == "handler" }?.file == Self.systemFile)
        #expect(configuration.notices.isEmpty)
        // The organisation's server, and the user's own address in the same group.
        let completed = Self.configuration("[account corp]\nfrom=Jane <jane@corp.example>\nuser=jane\n",
                                           system: "[account corp]\nhost=smtp.corp.example\nport=587\n")
        let corp = try #require(completed.accounts.first)
        let account = try corp.account.get()
        #expect(corp.name == "corp")
        #expect(account.server.address == "smtp.corp.example:587")
        #expect(account.server.user == "jane")
        #expect(account.from.address == "jane@corp.example")
    }

    /// A key the administrator locked keeps the system's value; what the user's file says
    /// of it is named, with both files.
    @Test func aLockedKeyWinsOverTheUsersFileAndSaysSo() throws {
        let configuration = Self.configuration("[route]\npolicy=direct\nhandler=thunderbird.desktop\n", system: """
            [route]
            policy=ask
            locked=policy
            """)
        #expect(configuration.route.policy == .ask)
        #expect(configuration.route.handler == "thunderbird.desktop", "a key not locked is the user's")
        let policy = try #require(configuration.settings.first { $0.key == "policy" })
        #expect(policy.locked && policy.file == Self.systemFile && policy.overriddenIn == Self.userFile)
        #expect(configuration.notices == [
            "\(Self.userFile): policy= in [route] is not used: it is locked by the administrator in \(Self.systemFile)",
        ])
    }

    /// `locked=*` locks a whole group: the organisation's server cannot be changed, and a
    /// key locked without a value of the system's keeps its built-in default.
    @Test func aLockedGroupAndALockedDefault() throws {
        let configuration = Self.configuration("""
            [account corp]
            from=Jane <jane@corp.example>
            host=smtp.evil.example
            [route]
            consent-timeout=5
            """, system: """
            [account corp]
            host=smtp.corp.example
            locked=host;port;security
            [route]
            locked=consent-timeout
            """)
        let corp = try #require(configuration.accounts.first).account.get()
        #expect(corp.server.host == "smtp.corp.example")
        #expect(corp.from.address == "jane@corp.example", "from= is not locked")
        #expect(configuration.route.consentTimeout == 120, "locked to its default")
        #expect(configuration.notices.count == 2, "\(configuration.notices)")
        #expect(configuration.notices.contains { $0.contains("consent-timeout= in [route] is not used: it is locked by the administrator to its default") })
    }

    /// `locked=` in the user's own file locks nothing.
    @Test func theUserCannotLock() {
        let configuration = Self.configuration("[route]\npolicy=direct\nlocked=policy\n", system: "[route]\npolicy=ask\n")
        #expect(configuration.route.policy == .direct)
        #expect(configuration.notices.contains { $0.contains("locked= in [route] is read only in a system configuration file") })
    }
}

/// Services for a session that reaches nothing outside the process.
final class FakeServices {
    let world: FakeWorld?
    let services: Services

    init() {
        world = try? FakeWorld()
        services = world?.services ?? Services(transport: FakeTransport(), mailPrograms: FakeMailPrograms(), consent: FakeConsent(),
                                               notifier: FakeNotifier(), clock: FakeClock(), onlineAccounts: FakeOnlineAccounts())
    }
}
