import Foundation
import MailtoRoute
import Outbox
import RouteFakes
import SMTPTransport
import Testing

/// Several accounts, and GNOME Online Accounts' credentials at each attempt, in-process:
/// a real Session over a temporary directory (outbox, drafts, the accounts' state file),
/// with fakes for the server, GNOME Online Accounts and the notifications.
@Suite struct AccountRoutingTests {
    let world: FakeWorld

    init() throws {
        world = try FakeWorld()
        // The outbox dates what it queues by the real clock: the flushes here run then too,
        // within a message's lifetime.
        world.clock.time = .now()
    }

    static let twoAccounts = """
        [account]
        from=Jane Doe <jane@example.org>
        host=smtp.example.org
        [account work]
        from=Jane Doe <jane.doe@work.example>
        host=smtp.work.example
        """

    func send(from account: String? = nil) -> RouteReport {
        var request = RouteRequest(email: EmailData(to: ["joe@example.com"], subject: "Figures", body: "x"), source: .send)
        request.account = account
        return world.session.route(request)
    }

    /// A refusal of the token, as SMTPSubmission classifies libcurl's CURLE_LOGIN_DENIED
    /// after the server's 535.
    static var refusedToken: SMTPError {
        var error = SMTPError(.configuration, "smtp.gmail.com:465 refused the sign-in token of jane@gmail.com: 535 5.7.8 Username and Password not accepted",
                              reply: "535 5.7.8 Username and Password not accepted")
        error.refusedLogin = true
        return error
    }

    func google() {
        world.onlineAccounts.accounts = [FakeOnlineAccounts.google("g1", address: "jane@gmail.com")]
        world.onlineAccounts.credentials["g1"] = "ya29.first"
    }

    // MARK: - Choosing

    @Test func theChosenAccountSendsAndTheReportNamesIt() throws {
        world.newSession(config: Self.twoAccounts)
        let report = send(from: "work")
        #expect(report.result == .sent)
        #expect(report.account == "work")
        #expect(world.transport.servers.map(\.host) == ["smtp.work.example"])
        #expect(world.transport.sent.first?.envelopeFrom == "jane.doe@work.example")
        let byAddress = send(from: "Jane.Doe@WORK.example")
        #expect(byAddress.account == "work", "an address picks its account, whatever its case")
        #expect(report.json.serialized.contains("\"account\": \"work\""), "\(report.json.serialized)")
        #expect(RouteReport(json: report.json.serialized)?.account == "work")
        let unchosen = send()
        #expect(unchosen.account == "default")
        // The outcome log names it too (`log --json`).
        #expect(try world.session.storage.outcomeLog.recent(3).map(\.account) == ["work", "work", "default"])
    }

    /// A message queued for one account is retried through that account, not the default.
    @Test func aQueuedMessageIsRetriedThroughItsOwnAccount() throws {
        world.newSession(config: Self.twoAccounts)
        world.transport.answers = [.failure(SMTPError(.transient, "connection refused"))]
        let report = send(from: "work")
        #expect(report.result == .queued)
        let entry = try #require(try world.session.storage.outbox.list().first)
        #expect(entry.account == "work")

        world.newSession(config: Self.twoAccounts)
        let flushed = try #require(try world.session.flushOutbox(allQueued: true))
        #expect(flushed.reports.map(\.outcome) == [.sent])
        #expect(world.transport.servers.map(\.host) == ["smtp.work.example", "smtp.work.example"])
        #expect(flushed.routeReports.first?.account == "work")
    }

    /// An account it was queued for that is gone: the message waits, untouched, and the
    /// log says why; it is never sent from another.
    @Test func aMessageWhoseAccountIsGoneWaits() throws {
        world.newSession(config: Self.twoAccounts)
        world.transport.answers = [.failure(SMTPError(.transient, "connection refused"))]
        _ = send(from: "work")
        world.newSession(config: "[account]\nfrom=a@example.org\nhost=smtp.example.org\n")
        #expect(throws: OutboxError.self) { try world.session.flushOutbox(allQueued: true) }
        #expect(world.transport.sent.count == 1, "only the first attempt")
        #expect(try world.session.storage.outbox.list().first?.attempts == 1)
    }

    // MARK: - GNOME Online Accounts

    /// No configuration at all: GNOME Online Accounts' account sends, signed in with the
    /// token GOA hands out at that attempt; a later run asks again (never kept).
    @Test func anOnlineAccountSignsInWithTheTokenOfEachAttempt() throws {
        google()
        world.newSession(config: nil)
        let report = send(from: "jane@gmail.com")
        #expect(report.result == .sent, "\(report)")
        #expect(report.account == "goa:g1")
        let server = try #require(world.transport.servers.first)
        #expect(server.bearerToken == "ya29.first" && server.password == nil)
        #expect(server.user == "jane@gmail.com")
        #expect(server.security == .tls && server.port == 465, "SmtpUseSsl wins over SmtpUseTls")
        world.onlineAccounts.credentials["g1"] = "ya29.second"
        world.newSession(config: nil)
        _ = send()
        #expect(world.transport.servers.last?.bearerToken == "ya29.second")
        #expect(world.onlineAccounts.calls == ["token g1", "token g1"])
    }

    @Test func anIMAPAndSMTPAccountLogsInWithItsUserNameAndKeyringPassword() throws {
        world.onlineAccounts.accounts = [FakeOnlineAccounts.imapSMTP("p1", address: "jane@example.net", login: "jdoe",
                                                                     host: "mail.example.net:2525")]
        world.onlineAccounts.credentials["p1"] = "keyring-pw"
        world.newSession(config: nil)
        let report = send()
        #expect(report.result == .sent)
        let server = try #require(world.transport.servers.first)
        #expect(server.user == "jdoe" && server.password == "keyring-pw" && server.bearerToken == nil)
        #expect(server.address == "mail.example.net:2525" && server.security == .starttls)
        #expect(world.onlineAccounts.calls == ["password p1"])
    }

    /// The server refuses the token: one "Sign in again", the message queued; nothing tries
    /// that token again by itself; a new token (the person signed in again) sends it.
    @Test func aRefusedTokenAsksOnceAndIsNotTriedAgainUntilTheTokenChanges() throws {
        google()
        world.newSession(config: nil)
        world.transport.answers = [.failure(Self.refusedToken)]
        let report = send()
        #expect(report.result == .queued, "\(report)")
        #expect(report.error?.message.contains("sign in again") == true, "\(String(describing: report.error))")
        #expect(world.notifier.signIns.map(\.account) == ["goa:g1"])
        #expect(world.notifier.signIns.first?.onlineAccountID == "g1")
        let entry = try #require(try world.session.storage.outbox.list().first)
        #expect(entry.account == "goa:g1")

        // Later runs (the service's timer, the quick flush of another send): the same token
        // is not sent to the server again, and the person is not told twice.
        for _ in 0..<2 {
            world.newSession(config: nil)
            let flushed = try #require(try world.session.flushOutbox(allQueued: true))
            #expect(flushed.reports.map(\.outcome) == [.rescheduled])
        }
        #expect(world.transport.sent.count == 1, "one attempt with the refused token")
        #expect(world.notifier.signIns.count == 1)

        world.onlineAccounts.credentials["g1"] = "ya29.after-sign-in"
        world.newSession(config: nil)
        let flushed = try #require(try world.session.flushOutbox(allQueued: true))
        #expect(flushed.reports.map(\.outcome) == [.sent])
        #expect(world.transport.servers.last?.bearerToken == "ya29.after-sign-in")
        #expect(world.session.accountMemory.refusal(of: "goa:g1") == nil, "a send ends the refusal")
        // No token is kept on disk, only its fingerprint was while it was refused.
        let state = try String(contentsOfFile: world.session.accountMemory.path, encoding: .utf8)
        #expect(!state.contains("ya29"))
    }

    /// `outbox retry` and `outbox flush` are the person acting: tried again once with the
    /// token GOA has, refused or not.
    @Test func thePersonCanAskForAnotherTryWithTheSameToken() throws {
        google()
        world.newSession(config: nil)
        world.transport.answers = [.failure(Self.refusedToken)]
        _ = send()
        world.newSession(config: nil, options: Session.Options(personAsked: true))
        let flushed = try #require(try world.session.flushOutbox(allQueued: true))
        #expect(flushed.reports.map(\.outcome) == [.sent])
        #expect(world.transport.sent.count == 2)
    }

    /// GOA itself says the account needs attention (or refuses EnsureCredentials): no
    /// server is tried, the message is queued, the person told once.
    @Test(arguments: [true, false])
    func anAccountGOASaysNeedsAttentionWaitsWithoutAnAttempt(attentionNeeded: Bool) throws {
        var account = FakeOnlineAccounts.google("g1", address: "jane@gmail.com")
        account.attentionNeeded = attentionNeeded
        world.onlineAccounts.accounts = [account]
        if !attentionNeeded {
            world.onlineAccounts.failures["g1"] = OnlineAccountsError(.notAuthorized, "Failed to refresh access token (400)")
        }
        world.newSession(config: nil)
        #expect(send().result == .queued)
        world.newSession(config: nil)
        #expect(send().result == .queued)
        #expect(world.transport.connections == 0)
        #expect(world.notifier.signIns.count == 1)
        #expect(try world.session.storage.outbox.list().count == 2)
    }

    /// GOA cannot hand out a token now (its token service is offline): queued, and nobody
    /// is asked to sign in.
    @Test func anUnreachableTokenServiceQueuesWithoutAskingToSignIn() throws {
        google()
        world.onlineAccounts.failures["g1"] = OnlineAccountsError(.unavailable, "Error resolving oauth2.googleapis.com")
        world.newSession(config: nil)
        let report = send()
        #expect(report.result == .queued)
        #expect(report.error?.kind == .transient)
        #expect(world.notifier.signIns.isEmpty)
        #expect(world.transport.connections == 0)
    }

    /// The compose sheet's From: every account with where it comes from, the default, and
    /// the one last used offered first.
    @Test func theSheetsChoicesAndTheLastUsed() throws {
        google()
        world.newSession(config: Self.twoAccounts)
        let choices = world.session.accountChoices(checkingCredentials: true)
        #expect(choices.map(\.name) == ["default", "work", "goa:g1"])
        #expect(choices.map(\.isDefault) == [true, false, false])
        #expect(choices[2].origin == "GNOME Online Accounts (Google)" && choices[2].originKind == "goa")
        #expect(choices[2].credentials == .available)
        #expect(choices[0].credentials == .notNeeded)
        #expect(world.onlineAccounts.calls == ["token g1"])
        #expect(world.session.preferredAccountName == "default")
        world.session.rememberLastUsed("goa:g1")
        #expect(world.newSession(config: Self.twoAccounts).preferredAccountName == "goa:g1")
    }
}
