import Foundation
import Testing
import TestSupport

/// Consent asked with a desktop notification, against a real notification server on a
/// private bus of each test's own (docs/design.md rule 1: whatever is not "Send" never sends).
@Suite struct NotificationConsentTests {
    /// Asks about `url` through a notification answered with `answers`.
    func ask(
        _ url: String = "mailto:joe@example.org?subject=Hi", answers: [String], capabilities: [String] = ["actions", "body"],
        options: [String] = []
    ) throws -> (decision: String?, server: ScriptedNotificationServer, result: RunResult) {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus, capabilities: capabilities, answers: answers)
        let result = try probeWithoutTerminal(
            ["ask", "--channel", "notification", "--timeout", "10"] + options + [url], in: sandbox, bus: bus.address)
        return (result.decision, server, result)
    }

    @Test func sendButtonIsConsent() throws {
        let (decision, server, result) = try ask(answers: ["action:send"])
        #expect(decision == "send", "\(result)")
        let shown = try #require(server.notifications.first)
        #expect(shown.summary == "Send this email?")
        #expect(shown.actions == ["send", "Send", "handoff", "Open in Fake Bird", "cancel", "Cancel"])
        #expect(shown.urgency == 2)
    }

    /// Under a German locale the question, its fields and its buttons are German; the
    /// actions' keys, which the server sends back, are the same words in every language.
    @Test func theQuestionIsAskedInTheUsersLanguage() throws {
        try compileCatalogs()
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus, answers: ["action:send"])
        let result = try probeWithoutTerminal(
            ["ask", "--channel", "notification", "--timeout", "10", "mailto:joe@example.org?subject=Hallo"], in: sandbox,
            bus: bus.address, extraEnvironment: ["LC_ALL": "de_DE.UTF-8"])
        #expect(result.decision == "send", "\(result)")
        let shown = try #require(server.notifications.first)
        #expect(shown.summary == "Diese E-Mail senden?")
        #expect(shown.actions == ["send", "Senden", "handoff", "In Fake Bird öffnen", "cancel", "Abbrechen"])
        #expect(shown.body.contains("An: joe@example.org"), "\(shown.body)")
        #expect(shown.body.contains("Betreff: Hallo"), "\(shown.body)")
        #expect(shown.body.contains("Von: "), "\(shown.body)")
    }

    /// Each file a link asked to attach is named in the notification,
    /// and the handoff is offered.
    @Test func eachFileTheLinkAskedToAttachIsNamedAsNotAttached() throws {
        let (decision, server, result) = try ask(requestedAttachmentsURL, answers: ["action:handoff"])
        #expect(decision == "handOff", "\(result)")
        let shown = try #require(server.notifications.first)
        let lines = shown.body.split(separator: "\n").map(String.init)
        #expect(lines.contains("Attach: /etc/passwd will not be attached"), "\(shown.body)")
        #expect(lines.contains("Attach: /home/joe/report 2026.pdf will not be attached"), "\(shown.body)")
        #expect(lines.contains("Attach: /tmp/x\\u{202E}fdp.exe will not be attached"), "\(shown.body)")
        #expect(lines.contains("A link cannot attach files: to send one, hand off to Fake Bird and attach it there."))
        #expect(shown.actions == ["send", "Send", "handoff", "Open in Fake Bird", "cancel", "Cancel"])
    }

    @Test func cancelButtonCancels() throws {
        let (decision, _, result) = try ask(answers: ["action:cancel"])
        #expect(decision == "cancel", "\(result)")
    }

    @Test func openInMailProgramButtonHandsOff() throws {
        let (decision, _, result) = try ask(answers: ["action:handoff"], options: ["--handler", "Thunderbird"])
        #expect(decision == "handOff", "\(result)")
    }

    @Test func withoutMailProgramTheSecondButtonSavesADraft() throws {
        let (decision, server, result) = try ask(answers: ["action:save"], options: ["--no-handler"])
        #expect(decision == "save", "\(result)")
        #expect(server.notifications.first?.actions == ["send", "Send", "save", "Save as draft", "cancel", "Cancel"])
    }

    @Test func actionThatWasNotOfferedIsNotConsent() throws {
        let (decision, _, result) = try ask(answers: ["action:default"])
        #expect(decision?.hasPrefix("notConsented: ") == true, "\(result)")
    }

    @Test(arguments: ["close:2", "close:1", "close:4"])
    func closedNotificationIsNotConsent(answer: String) throws {
        let (decision, _, result) = try ask(answers: [answer])
        #expect(decision?.hasPrefix("notConsented: ") == true, "\(result)")
    }

    @Test func answersAboutOtherNotificationsAreIgnored() throws {
        let (decision, _, result) = try ask(answers: ["other-action:send", "other-close:2", "action:cancel"])
        #expect(decision == "cancel", "\(result)")
    }

    /// A question answered is closed, also where the server keeps it.
    @Test func answeredNotificationIsClosedWhereTheServerKeepsIt() throws {
        let (decision, server, result) = try ask(answers: ["resident-action:cancel"])
        #expect(decision == "cancel", "\(result)")
        let calls = server.calls
        #expect(calls.map(\.method) == ["Notify", "CloseNotification"], "\(calls)")
        #expect(calls.count == 2 && calls[0].id == calls[1].id)
    }

    @Test func unansweredNotificationTimesOutAndIsClosed() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus, answers: [])
        let result = try probeWithoutTerminal(
            ["ask", "--channel", "notification", "--timeout", "1", "mailto:joe@example.org"], in: sandbox, bus: bus.address)
        #expect(result.decision == "notConsented: no answer to the notification within 1 s", "\(result)")
        let calls = server.calls
        #expect(calls.map(\.method) == ["Notify", "CloseNotification"])
        #expect(calls.count == 2 && calls[0].id == calls[1].id)
    }

    @Test func serverWithoutActionsIsNeverAsked() throws {
        let (decision, server, result) = try ask(answers: ["action:send"], capabilities: ["body", "body-markup"])
        #expect(decision?.contains("no 'actions' capability") == true, "\(result)")
        #expect(server.notifications.isEmpty)
    }

    @Test func busWithoutNotificationServerIsNotConsent() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        // Nothing else holds the bus: kept to the end, or it may be stopped (its deinit) as
        // soon as its address is read, and the probe finds no bus rather than no server.
        defer { withExtendedLifetime(bus) {} }
        let result = try probeWithoutTerminal(
            ["ask", "--channel", "notification", "mailto:joe@example.org"], in: sandbox, bus: bus.address)
        #expect(result.decision?.hasPrefix("notConsented: cannot ask with a notification: no notification server") == true, "\(result)")
    }

    @Test(arguments: [
        ["DBUS_SESSION_BUS_ADDRESS": "disabled:"],
        ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/mailto-route-test-bus"],
    ])
    func noSessionBusIsNotConsent(environment: [String: String]) throws {
        let sandbox = try Sandbox()
        let result = try probeWithoutTerminal(
            ["ask", "mailto:joe@example.org"], in: sandbox, extraEnvironment: environment)
        #expect(result.decision?.hasPrefix("notConsented: cannot ask with a notification") == true, "\(result)")
    }

    /// A server that takes the question and never answers the call is given up at the
    /// call's own deadline (2 s), as the reason says: not the answer's (30 s here), nor
    /// GDBus's default (25 s).
    @Test func stuckServerIsGivenUpWithinTheCallTimeout() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus, silentNotify: true)
        let result = try probeWithoutTerminal(
            ["ask", "--channel", "notification", "--timeout", "30", "mailto:joe@example.org"], in: sandbox, bus: bus.address)
        #expect(result.decision == "notConsented: cannot ask with a notification: the notification could not be shown: "
            + "no answer to org.freedesktop.Notifications.Notify within 2 s", "\(result)")
        #expect(server.notifications.count == 1)
    }

    @Test func busThatNeverAnswersIsGivenUp() throws {
        let sandbox = try Sandbox()
        let bus = try silentBus(in: sandbox)
        defer { bus.listener.stop() }
        let result = try probeWithoutTerminal(
            ["ask", "--channel", "notification", "mailto:joe@example.org"], in: sandbox,
            extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(result.decision?.contains("did not answer within 2 s") == true, "\(result)")
    }

    @Test func noTerminalAsksWithANotification() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus, answers: ["action:send"])
        let result = try probeWithoutTerminal(["ask", "mailto:joe@example.org"], in: sandbox, bus: bus.address)
        #expect(result.decision == "send", "\(result)")
        #expect(server.notifications.count == 1)
    }

    @Test func notificationShowsTheMessageEscaped() throws {
        let (_, server, _) = try ask(disguisedURL, answers: ["action:cancel"])
        let body = try #require(server.notifications.first?.body)
        #expect(body.contains("Subject: invoice\\u{202E}fdp.exe"))
        #expect(body.contains("To: joe@example.org"))
        #expect(body.contains("Cc: ann@example.org"))
        #expect(body.contains("Bcc: bob@example.org"))
        #expect(body.contains("From: Jane Doe <jane@example.org>"))
        #expect(body.contains("\\u{1B}[31mred"))
        #expect(!body.unicodeScalars.contains("\u{202E}"))
        #expect(!body.unicodeScalars.contains("\u{1B}"))
    }

    @Test func markupIsEscapedForServersThatRenderIt() throws {
        let (_, server, _) = try ask("mailto:joe@example.org?subject=%3Cb%3Eurgent%3C/b%3E",
                                     answers: ["action:cancel"], capabilities: ["actions", "body", "body-markup"])
        let body = try #require(server.notifications.first?.body)
        #expect(body.contains("Subject: &lt;b&gt;urgent&lt;/b&gt;"))
    }
}

/// What `--check` will say about asking a link's consent.
@Suite struct ConsentReachTests {
    @Test func serverWithButtonsIsNamed() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus)
        let result = try probeWithoutTerminal(["reach"], in: sandbox, bus: bus.address)
        #expect(result.stdout == "notification: scripted-notifications 1.0\n", "\(result)")
        #expect(server.notifications.isEmpty)
    }

    @Test func serverWithoutButtonsIsUnreachable() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus, capabilities: ["body"])
        let result = try probeWithoutTerminal(["reach"], in: sandbox, bus: bus.address)
        #expect(result.stdout.hasPrefix("unreachable: the notification server (scripted-notifications 1.0) shows no buttons"), "\(result)")
        #expect(server.notifications.isEmpty)
    }

    @Test func noBusIsUnreachable() throws {
        let sandbox = try Sandbox()
        let result = try probeWithoutTerminal(["reach"], in: sandbox)
        #expect(result.stdout.hasPrefix("unreachable: no terminal, and no notification server"), "\(result)")
    }

    @Test func terminalIsReachedFirst() throws {
        let sandbox = try Sandbox()
        let result = try runOnTerminal([consentProbe, "reach"], environment: sandbox.environment)
        #expect(result.stdout == "terminal\r\n", "\(result)")
    }
}

/// The informational notification that tells a clicked link what happened.
@Suite struct ReportNotificationTests {
    @Test func reportIsShownWithoutButtons() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus)
        let result = try probeWithoutTerminal(
            ["report", "handed off to Fake Bird (fakebird.desktop)", "warning: not taken from the URL: 'from'"],
            in: sandbox, bus: bus.address)
        #expect(result.status == 0 && result.stdout == "shown\n", "\(result)")
        let shown = try #require(server.notifications.first)
        #expect(shown.summary == "handed off to Fake Bird (fakebird.desktop)")
        // The application as a person knows it, with its icon (data/icons).
        #expect(shown.appName == "Mail Link")
        #expect(shown.appIcon == "io.github.mailto_route.MailtoRoute")
        #expect(shown.body == "warning: not taken from the URL: 'from'")
        #expect(shown.actions.isEmpty)
        #expect(shown.urgency == 1)
    }

    @Test func failureIsUrgent() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus)
        let result = try probeWithoutTerminal(["report", "not sent: refused", "--urgent"], in: sandbox, bus: bus.address)
        #expect(result.status == 0, "\(result)")
        #expect(server.notifications.first?.urgency == 2)
    }

    @Test func reportNeedsNoActionsCapability() throws {
        let sandbox = try Sandbox()
        let bus = try PrivateSessionBus()
        let server = try ScriptedNotificationServer(on: bus, capabilities: ["body"])
        let result = try probeWithoutTerminal(["report", "saved"], in: sandbox, bus: bus.address)
        #expect(result.status == 0, "\(result)")
        #expect(server.notifications.count == 1)
    }

    @Test func reportWithoutABusSaysItWasNotShown() throws {
        let sandbox = try Sandbox()
        let result = try probeWithoutTerminal(["report", "saved"], in: sandbox)
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("unavailable: "), "\(result)")
    }
}
