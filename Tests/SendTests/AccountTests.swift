import Foundation
import Testing
import TestSupport

@Suite struct AccountTests {
    @Test func passwordNeverAppearsInOutputOrAnyArgv() throws {
        let certificates = try certificates()
        let sandbox = try Sandbox()
        let password = "pw-\(UUID().uuidString)"
        // The server waits before accepting, so that the sender is caught mid-send.
        let server = try SMTPTestServer(.starttls, certificate: certificates.server, auth: ("jane", password), dataDelay: 1.5)
        try writeAccount(sandbox, port: server.port, security: "starttls", user: "jane", password: password,
                         caFile: certificates.caFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: mailtoRouteBinary)
        process.arguments = ["send", "--to", "joe@example.com", "--body", "x", "--json"]
        process.environment = sandbox.environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        var sawProcess = false
        var leaked: [String] = []
        // Every argv looked through every 50 ms while it runs.
        try waitUntil("mailto-route send has ended", every: 0.05) {
            for (pid, words) in commandLines() {
                if pid == process.processIdentifier { sawProcess = true }
                // The test server's own argv carries it (it is the other side); nothing else may.
                if words.contains(password), !words.contains("smtp_server.py") { leaked.append(words) }
            }
            return !process.isRunning
        }
        process.waitUntilExit()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stdout)\(stderr)")
        #expect(sawProcess)
        #expect(leaked.isEmpty)
        #expect(!stdout.contains(password) && !stderr.contains(password))
        #expect(server.messages.count == 1)
    }

    @Test func passwordInAFileOthersCanReadIsRefused() throws {
        let sandbox = try Sandbox()
        let config = try writeAccount(sandbox, port: 2525, security: "none", user: "jane", password: "pw", mode: 0o644)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first?.contains("chmod 600 \(config.path)") == true)
        // One line for the mistake, one for where the message was kept.
        #expect(lines.count == 2)
        #expect(lines.last == "saved as a draft: \(sandbox.drafts.first?.path ?? "-")")
    }

    /// A password others can read is refused even when it is not the one used: a
    /// password-command (msmtp's passwordeval) beside it does not hide it.
    @Test(arguments: ["config", "msmtprc", "msmtprc, another account"])
    func passwordInAFileOthersCanReadIsRefusedWhateverElseItHolds(_ kind: String) throws {
        let sandbox = try Sandbox()
        let password = "pw-\(UUID().uuidString)"
        let file: URL
        switch kind {
        case "config":
            file = try writeAccount(sandbox, port: 2525, security: "none", user: "jane", password: password,
                                    passwordCommand: "echo \(password)", mode: 0o644)
        case "msmtprc":
            file = try sandbox.write("""
                account default
                host 127.0.0.1
                port 2525
                from jane@example.org
                user jane
                passwordeval echo \(password)
                password \(password)

                """, to: "home/.msmtprc", mode: 0o644)
        default:
            file = try sandbox.write("""
                account old
                host smtp.example.org
                from jane@example.org
                user jane
                password \(password)
                account default
                host 127.0.0.1
                port 2525
                from jane@example.org

                """, to: "home/.msmtprc", mode: 0o644)
        }
        let sent = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(sent.status == 78, "\(sent)")
        #expect(sent.stderr.split(separator: "\n").first?.contains("chmod 600 \(file.path)") == true, "\(sent)")
        let check = try mailtoRoute(["check", "--offline", "--json"], in: sandbox)
        #expect(check.status == 78, "\(check)")
        let problems = try jsonObject(check.stdout)["problems"] as? [[String: Any]] ?? []
        #expect(problems.contains { $0["fix"] as? String == "chmod 600 \(file.path)" }, "\(check)")
        for text in [sent.stdout, sent.stderr, check.stdout, check.stderr] { #expect(!text.contains(password)) }
    }

    @Test func passwordCommandSuppliesThePassword() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, auth: ("jane", "from-command"))
        try sandbox.write("from-command\n", to: "home/secret")
        try writeAccount(sandbox, port: server.port, security: "none", user: "jane",
                         passwordCommand: "cat \(sandbox.home.path)/secret", mode: 0o644)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        #expect(server.messages.count == 1)
    }

    @Test func failingPasswordCommandShowsItsErrorOutput() throws {
        let sandbox = try Sandbox()
        try writeAccount(sandbox, port: 2525, security: "none", user: "jane",
                         passwordCommand: "echo 'no such secret' >&2; exit 3")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("exited with status 3: no such secret"))
    }

    @Test func msmtprcDefaultAccountIsUsedWithoutAConfigFile() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain)
        try sandbox.write("""
            defaults
            tls off
            account work
            host 127.0.0.1
            port \(server.port)
            from jane@example.org
            account default : work
            """, to: "home/.msmtprc", mode: 0o600)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 0, "\(result)")
        let message = try #require(server.messages.first)
        #expect(try server.envelope(of: message)["mail_from"] as? String == "jane@example.org")
    }

    /// msmtprc has no allow-plaintext: `tls off` to another machine is refused when the
    /// file is read, before its passwordeval runs.
    @Test func msmtprcWithTLSOffToAnotherHostIsRefusedWhenRead() throws {
        let sandbox = try Sandbox()
        let marker = sandbox.root.appendingPathComponent("password-asked")
        let msmtprc = try sandbox.write("""
            account default
            host smtp.example.invalid
            from jane@example.org
            user jane
            passwordeval touch \(marker.path); echo secret

            """, to: "home/.msmtprc", mode: 0o600)
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.hasPrefix("mailto-route: not sent: \(msmtprc.path) (account default): tls off would send"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
    }

    /// No account and no mail program: nothing can take the message, so it is saved.
    @Test func noAccountAndNoMailProgramSavesADraft() throws {
        let sandbox = try Sandbox()
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("no account to send from: no account is configured"))
        let draft = try #require(sandbox.drafts.first)
        #expect(try sandbox.header("To", of: draft) == "joe@example.com")
    }

    @Test func configMistakeIsOneLineNamingTheFile() throws {
        let sandbox = try Sandbox()
        let config = try sandbox.write("[account]\nfrom=jane@example.org\nhost=x\nsecurity=maybe\n",
                                       to: "home/.config/mailto-route/config")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr == """
            mailto-route: not sent: \(config.path): security=maybe: must be tls, starttls or none
            saved as a draft: \(sandbox.drafts.first?.path ?? "-")

            """)
    }

    /// GLib's message quotes the line it cannot read, which may be the password in another
    /// syntax: the line is named by its number (else left out), and its text is shown nowhere.
    @Test(arguments: [
        ("password hunter2", "PATH:4: not a key=value pair, a [group] or a comment"),
        ("Encoding=hunter2", "cannot read PATH: Key file contains unsupported encoding"),
    ])
    func lineThatDoesNotParseIsNamedByNumberNotShown(_ line: String, _ message: String) throws {
        let sandbox = try Sandbox()
        let config = try sandbox.write("[account]\nfrom=jane@example.org\nhost=127.0.0.1\n\(line)\n",
                                       to: "home/.config/mailto-route/config", mode: 0o600)
        let expected = message.replacingOccurrences(of: "PATH", with: config.path)
        let sent = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox)
        #expect(sent.stderr.split(separator: "\n").first.map(String.init) == "mailto-route: not sent: \(expected)", "\(sent)")
        for result in [sent] + (try [["check", "--offline"], ["check", "--offline", "--json"]].map { try mailtoRoute($0, in: sandbox) }) {
            #expect(result.status == 78, "\(result)")
            #expect((result.stdout + result.stderr).contains(expected), "\(result)")
            #expect(!result.stdout.contains("hunter2") && !result.stderr.contains("hunter2"), "\(result)")
        }
    }

    @Test func passwordIsLookedUpInTheSecretServiceUnderMsmtpsAttributes() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, auth: ("jane", "from-keyring"))
        let secrets = try FakeSecretService(items: [
            (["host": "127.0.0.1", "service": "smtp", "user": "someone-else"], "wrong"),
            (["host": "127.0.0.1", "service": "smtp", "user": "jane"], "from-keyring"),
        ])
        try writeAccount(sandbox, port: server.port, security: "none", user: "jane")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": secrets.address])
        #expect(result.status == 0, "\(result)")
        #expect(server.messages.count == 1)
    }

    @Test func lockedKeyringIsAConfigurationErrorThatSaysSo() throws {
        let sandbox = try Sandbox()
        let secrets = try FakeSecretService(items: [(["host": "127.0.0.1", "service": "smtp", "user": "jane"], "pw")], locked: true)
        try writeAccount(sandbox, port: 2525, security: "none", user: "jane")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": secrets.address])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("locked"))
    }

    /// With a display, a locked keyring is unlocked through its own prompt, as GNOME
    /// applications do (the fake's prompt answers by itself, as a person would).
    @Test func lockedKeyringIsUnlockedThroughItsPromptWhenThereIsADisplay() throws {
        let sandbox = try Sandbox()
        let server = try SMTPTestServer(.plain, auth: ("jane", "from-keyring"))
        let secrets = try FakeSecretService(
            items: [(["host": "127.0.0.1", "service": "smtp", "user": "jane"], "from-keyring")], locked: true)
        try writeAccount(sandbox, port: server.port, security: "none", user: "jane")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": secrets.address, "DISPLAY": ":99"])
        #expect(result.status == 0, "\(result)")
        #expect(server.messages.count == 1)
        let calls = secrets.calls
        let unlock = try #require(calls.firstIndex(of: "Unlock"), "\(calls)")
        let prompt = try #require(calls.firstIndex(of: "Prompt"), "\(calls)")
        let secret = try #require(calls.firstIndex(of: "GetSecrets"), "\(calls)")
        #expect(unlock < prompt && prompt < secret, "\(calls)")
    }

    @Test func dismissedUnlockPromptLeavesTheKeyringLockedAndSaysSo() throws {
        let sandbox = try Sandbox()
        let secrets = try FakeSecretService(
            items: [(["host": "127.0.0.1", "service": "smtp", "user": "jane"], "pw")], locked: true, promptDismissed: true)
        try writeAccount(sandbox, port: 2525, security: "none", user: "jane")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": secrets.address, "WAYLAND_DISPLAY": "wayland-0"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("locked: its unlock prompt was dismissed"), "\(result)")
        #expect(secrets.calls.contains("Prompt"), "\(secrets.calls)")
        #expect(!secrets.calls.contains("GetSecrets"), "\(secrets.calls)")
    }

    /// A keyring daemon that owns its name and never answers costs the lookup's deadline
    /// (SecretService.lookupTimeout, 5 s), not a hang: the message is kept as a draft.
    @Test func secretServiceThatNeverAnswersIsAConfigurationErrorWithinTheDeadline() throws {
        let sandbox = try Sandbox()
        let secrets = try FakeSecretService(
            items: [(["host": "127.0.0.1", "service": "smtp", "user": "jane"], "pw")], stalled: true)
        try writeAccount(sandbox, port: 2525, security: "none", user: "jane")
        let clock = ContinuousClock()
        let started = clock.now
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": secrets.address, "DISPLAY": ":99"])
        let elapsed = clock.now - started
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("the Secret Service did not answer"), "\(result)")
        // GDBus's own default (25 s) would end a call without a deadline; this one ends at
        // 5 s, as the reason says, and not before (measured from before the run started).
        #expect(result.stderr.contains("within 5 s"), "\(result)")
        #expect(elapsed >= .seconds(5), "\(elapsed)")
        #expect(sandbox.drafts.count == 1)
    }

    @Test func noPasswordAnywhereNamesTheAttributesToStore() throws {
        let sandbox = try Sandbox()
        let secrets = try FakeSecretService(items: [])
        try writeAccount(sandbox, port: 2525, security: "none", user: "jane")
        let result = try mailtoRoute(["send", "--to", "joe@example.com", "--body", "x"], in: sandbox,
                                     extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": secrets.address])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("host=127.0.0.1 service=smtp user=jane"))
    }
}
