import MailtoRoute
import RouteFakes
import Testing

/// A session built from given paths and config text, in-process.
@Suite struct SessionTests {
    static let paths = Paths(home: "/h", configHome: "/h/.config", dataHome: "/h/.local/share", stateHome: "/h/.local/state")

    @Test func everyFileIsUnderTheOneSetOfPaths() {
        #expect(Self.paths.configFile == "/h/.config/mailto-route/config")
        #expect(Self.paths.msmtprcFiles == ["/h/.msmtprc", "/h/.config/msmtp/config"])
        #expect(Self.paths.storage.outbox.directory == "/h/.local/state/mailto-route/outbox")
        #expect(Self.paths.storage.drafts.directory == "/h/.local/share/mailto-route/drafts")
    }

    @Test func theInlinePasswordIsObtainedFromTheConfiguration() throws {
        let configuration = Configuration(config: ("/h/.config/mailto-route/config", .success((
            "[account]\nfrom=a@x.example\nhost=127.0.0.1\nsecurity=none\nuser=a\npassword=pw\n", 0o600))))
        let session = Session(paths: Self.paths, configuration: configuration, services: FakeServices().services)
        #expect(try session.server().password == "pw")
        #expect(session.account?.server.address == "127.0.0.1:587")
    }

    /// A command's say over credentials is given when its session is made (`check`: a
    /// password command gets little time, no prompt), never set on it afterwards.
    @Test func theOptionsASessionIsMadeWithDecideHowItAsksForAPassword() throws {
        let configuration = Configuration(config: ("/h/.config/mailto-route/config", .success((
            "[account]\nfrom=a@x.example\nhost=127.0.0.1\nsecurity=none\nuser=a\npassword-command=sleep 5\n", 0o600))))
        let display = Session.Environment(hasDisplay: true)
        #expect(Session(paths: Self.paths, configuration: configuration, environment: display, services: FakeServices().services)
            .passwordMayPrompt)
        let checking = Session(paths: Self.paths, configuration: configuration, environment: display,
                               services: FakeServices().services,
                               options: Session.Options(passwordCommandTimeout: 0.2, passwordMayPrompt: false))
        #expect(!checking.passwordMayPrompt)
        #expect(throws: ConfigurationError.self) { try checking.server() }
        do {
            _ = try checking.server()
        } catch {
            #expect("\(error)".contains("within 0.2 s"))
        }
    }

    @Test func noAccountIsAConfigurationErrorThatNamesTheFile() {
        let session = Session(paths: Self.paths, configuration: Configuration(config: nil), services: FakeServices().services)
        #expect(throws: ConfigurationError.self) { try session.server() }
        do {
            _ = try session.server()
        } catch {
            #expect("\(error)".contains("/h/.config/mailto-route/config"))
        }
    }
}
