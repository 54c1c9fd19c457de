import Foundation
import Testing
import TestSupport

extension ServiceTests.Service {
    /// An application's files through the Email portal, handed off to webmail
    /// (`policy=handoff`, `handler=webmail:gmail`) by the desktop service: the whole message
    /// waits in the account's Drafts on a real Dovecot, and the browser opens that account's
    /// drafts view; the portal's response is 0.
    @Test func portalFilesHandedOffToWebmailWaitInTheAccountsDrafts() throws {
        let dovecot = try DovecotIMAPServer(certificate: TestCertificates.shared.get().server, user: "jane@example.org")
        // The password as a password command gives it; the file is the test's, beside Dovecot's.
        let secret = dovecot.directory.appendingPathComponent("client-password")
        try "s3cret-imap".write(to: secret, atomically: false, encoding: .utf8)
        try sandbox.installHandler("browser.desktop", name: "Browser", program: "browser",
                                   mimeTypes: "x-scheme-handler/https;x-scheme-handler/http;")
        _ = try sandbox.write("""
            [account]
            from=Jane Doe <jane@example.org>
            host=127.0.0.1
            port=1
            user=jane@example.org
            password-command=cat \(secret.path)
            ca-file=\(try TestCertificates.shared.get().caFile)
            imap-host=127.0.0.1
            imap-port=\(dovecot.imapsPort)

            [route]
            policy=handoff
            handler=webmail:gmail

            """, to: "home/.config/mailto-route/config", mode: 0o600)
        _ = try composeTwoFilesWithoutAWindow(request: "t9")
        #expect(sandbox.recordedArgv("browser", timeout: 10) == ["https://mail.google.com/mail/?authuser=jane%40example.org#drafts"])
        #expect(dovecot.drafts.count == 1, "\(dovecot.log)")
        let draft = try #require(dovecot.drafts.first)
        #expect(draft.lastPathComponent.hasSuffix(":2,D"), "\(draft.lastPathComponent)")
        let parts = try #require(try pythonView(of: draft)["parts"] as? [[String: Any]])
        #expect(parts.compactMap { $0["filename"] as? String } == ["a.txt", "b.txt"], "\(parts)")
        #expect(parts.compactMap { $0["sha256"] as? String }.suffix(2) == [sha256(Data("one\n".utf8)), sha256(Data("two\n".utf8))])
    }
}
