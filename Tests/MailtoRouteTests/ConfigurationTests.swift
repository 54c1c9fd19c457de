import MailtoRoute
import Testing

/// The config file and msmtp's, read from text in-process.
@Suite struct ConfigurationTests {
    static func configuration(_ config: String?, mode: UInt32 = 0o600, msmtprc: String? = nil, msmtprcMode: UInt32 = 0o600) -> Configuration {
        Configuration(config: config.map { ("/h/.config/mailto-route/config", .success(($0, mode))) }) {
            msmtprc.map { ("/h/.msmtprc", .success(($0, msmtprcMode))) }
        }
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
        let account = try #require(try configuration.account?.get())
        #expect(account.from.address == "jane@example.org")
        #expect(account.server.address == "smtp.example.org:587")
        #expect(account.server.security == .starttls)
        #expect(account.password == .command("pass smtp"))
        #expect(configuration.route.policy == .direct)
        #expect(configuration.route.handler == "thunderbird.desktop")
        #expect(configuration.accountFile?.path == "/h/.config/mailto-route/config")
    }

    @Test func aRouteGroupAloneLeavesTheAccountToMsmtp() throws {
        let configuration = Self.configuration("[route]\nhandler=x.desktop\n", msmtprc: """
            account work
            host smtp.work.example
            from me@work.example
            tls on
            account default : work
            """)
        let account = try #require(try configuration.account?.get())
        #expect(account.from.address == "me@work.example")
        #expect(account.server.address == "smtp.work.example:25")
        #expect(configuration.route.handler == "x.desktop")
        #expect(configuration.accountFile?.path == "/h/.msmtprc")
    }

    @Test func msmtpWithSeveralAccountsAndNoDefaultIsAnErrorNamingTheFile() {
        let configuration = Self.configuration(nil, msmtprc: "account a\nhost h\nfrom a@x\ntls on\naccount b\nhost h\nfrom b@x\ntls on\n")
        guard case .failure(let mistake)? = configuration.account else {
            Issue.record("expected a mistake, got \(String(describing: configuration.account))")
            return
        }
        #expect(mistake.message.hasPrefix("/h/.msmtprc: 2 accounts (a, b) and none is the default"))
    }

    @Test func theOnlyMsmtpAccountIsTheDefault() throws {
        let configuration = Self.configuration(nil, msmtprc: "defaults\ntls on\naccount only\nhost h.example\nfrom o@x.example\n")
        #expect(try configuration.account?.get().from.address == "o@x.example")
    }

    @Test func aPasswordInAFileOthersCanReadIsRefused() {
        let configuration = Self.configuration("[account]\nfrom=a@x.example\nhost=h.example\npassword=hunter2\n", mode: 0o644)
        guard case .failure(let mistake)? = configuration.account else {
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
        if case .failure? = configuration.account {} else { Issue.record("a broken file gave an account") }
    }

    @Test func noFilesMeansNoAccount() {
        let configuration = Self.configuration(nil)
        #expect(configuration.account == nil)
        #expect(!configuration.hasAccount)
    }
}
