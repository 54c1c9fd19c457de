import MailtoRoute
import RouteFakes
import SMTPTransport
import Testing

/// A webmail handoff with an account that reaches IMAP (issue 34), in-process: the whole
/// message goes to the account's Drafts and the webmail opens there; where it cannot, the
/// compose page is opened as before, the refusal said once.
@Suite struct WebmailDraftsTests {
    let world: FakeWorld

    init() throws {
        world = try FakeWorld()
        var webmail = FakeMailProgram()
        webmail.id = "webmail:gmail"
        webmail.name = "Gmail in Browser"
        webmail.drafts = "https://mail.example/?u=ADDRESS#drafts"
        webmail.notCarried = ["attachment figures.bin"]
        world.mailPrograms.program = webmail
    }

    static let imapAccount = """
        [account]
        from=Jane Doe <jane@example.org>
        host=smtp.example.org
        user=jane
        password=s3cret
        imap-host=imap.example.org
        """

    var webmail: FakeMailProgram? { world.mailPrograms.program }

    func handOff() -> RouteReport {
        let email = EmailData(to: ["bob@example.com"], subject: "Figures", body: "See attached",
                              attachments: [Attachment(content: .data([0, 1, 2, 255]), mimeType: "application/octet-stream",
                                                       fileName: "figures.bin")])
        return world.session.route(RouteRequest(email: email, source: .send, forcedPath: .handoff))
    }

    @Test func theWholeMessageWaitsInTheAccountsDraftsAndTheWebmailOpensThere() throws {
        world.newSession(config: Self.imapAccount)
        let report = handOff()
        #expect(report.result == .handedOff)
        #expect(report.mailbox == "Drafts")
        #expect(report.account == "default")
        #expect(report.server == "imap.example.org:993")
        #expect(report.handler?.id == "webmail:gmail")
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        #expect(report.readableLines.contains("the whole message, attachments included, is stored as a draft in Drafts of default (imap.example.org:993)"))
        #expect(webmail?.draftsOpened == ["https://mail.example/?u=jane@example.org#drafts"])
        #expect(webmail?.taken.isEmpty == true)
        let stored = try #require(world.draftsMailbox.stored.first)
        #expect(world.draftsMailbox.stored.count == 1)
        #expect(stored.server.user == "jane" && stored.server.password == "s3cret" && stored.server.bearerToken == nil)
        let text = String(decoding: stored.message, as: UTF8.self)
        #expect(text.contains("filename=figures.bin") || text.contains("filename=\"figures.bin\""), "\(text)")
        #expect(try world.drafts().isEmpty)
    }

    /// No IMAP server named: the compose page, as before; nothing tried.
    @Test func anAccountWithoutIMAPHandsOffAsBefore() throws {
        world.newSession(config: "[account]\nfrom=jane@example.org\nhost=smtp.example.org\n")
        let report = handOff()
        #expect(report.result == .handedOff && report.mailbox == nil)
        #expect(world.draftsMailbox.attempts.isEmpty)
        #expect(webmail?.taken.count == 1)
        #expect(try world.drafts().count == 1, "what the compose page did not get is kept")
    }

    /// Stored nowhere: the compose page, the local draft, one warning.
    @Test func aRefusedLoginHandsOffAsBeforeAndSaysSoOnce() throws {
        var refusal = SMTPError(.configuration, "imap.example.org:993 refused the user name or password")
        refusal.refusedLogin = true
        world.draftsMailbox.answer = .failure(refusal)
        world.newSession(config: Self.imapAccount)
        let report = handOff()
        #expect(report.result == .handedOff && report.mailbox == nil)
        #expect(report.warnings.filter { $0.hasPrefix("not stored in the Drafts of jane@example.org: ") }.count == 1, "\(report.warnings)")
        #expect(webmail?.taken.count == 1 && webmail?.draftsOpened.isEmpty == true)
        #expect(report.draft != nil)
        #expect(world.notifier.signIns.isEmpty, "a config account's password is not GOA's")
    }

    /// GOA's token, refused by the IMAP server: one Sign in again, and the next message does
    /// not offer the same token again.
    @Test func aRefusedTokenIsOneSignInAgainAndNotTriedAgain() throws {
        var google = FakeOnlineAccounts.google("g1", address: "jane@gmail.com")
        google.imapHost = "imap.gmail.com"
        google.imapUseSsl = true
        world.onlineAccounts.accounts = [google]
        world.onlineAccounts.credentials["g1"] = "ya29.refused"
        var refusal = SMTPError(.configuration, "imap.gmail.com:993 refused the sign-in token of jane@gmail.com")
        refusal.refusedLogin = true
        world.draftsMailbox.answer = .failure(refusal)
        world.newSession(config: nil)
        _ = handOff()
        #expect(world.draftsMailbox.attempts.map(\.bearerToken) == ["ya29.refused"])
        #expect(world.draftsMailbox.attempts.first?.address == "imap.gmail.com:993")
        world.newSession(config: nil)
        let second = handOff()
        #expect(second.result == .handedOff)
        #expect(second.warnings.contains { $0.contains("not tried again") }, "\(second.warnings)")
        #expect(world.draftsMailbox.attempts.count == 1)
        #expect(world.notifier.signIns.count == 1)
    }

    /// An IMAP and SMTP account of GOA logs in to IMAP with the IMAP password GOA keeps.
    @Test func anIMAPAndSMTPOnlineAccountLogsInWithItsIMAPPassword() throws {
        var account = FakeOnlineAccounts.imapSMTP("p1", address: "jane.doe@example.net", login: "jdoe", host: "smtp.example.net")
        account.imapHost = "imap.example.net:1993"
        account.imapUseTls = true
        account.imapUserName = "jdoe-imap"
        world.onlineAccounts.accounts = [account]
        world.onlineAccounts.credentials["p1"] = "pw"
        world.newSession(config: nil)
        let report = handOff()
        #expect(report.mailbox == "Drafts", "\(report.warnings)")
        #expect(world.onlineAccounts.calls == ["imap-password p1"])
        let server = try #require(world.draftsMailbox.stored.first?.server)
        #expect(server.address == "imap.example.net:1993" && server.security == .starttls)
        #expect(server.user == "jdoe-imap" && server.password == "pw" && server.bearerToken == nil)
        #expect(webmail?.draftsOpened == ["https://mail.example/?u=jane.doe@example.net#drafts"])
    }
}
