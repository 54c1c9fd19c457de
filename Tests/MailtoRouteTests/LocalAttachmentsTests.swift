import Foundation
import MailtoRoute
import Testing

/// What `open --local` makes of a local program's URL (LocalAttachments), in-process:
/// the files it names become trusted attachments, or an error that names the one that
/// cannot be attached; and what becomes of the files a trust does not cover.
@Suite struct LocalAttachmentsTests {
    /// A directory of its own holding `name`, removed when the test ends.
    final class Files {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("local-attachments-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: directory) }
        func write(_ name: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data("x".utf8).write(to: url)
            return url.path
        }
    }

    @Test func pathsAndFileURIsBecomeAttachmentsAndAreNoLongerDropped() throws {
        let files = try Files()
        let plain = try files.write("report.pdf")
        let spaced = try files.write("a b,c.txt")
        let percent = try files.write("100%.odt")
        let escapedSpaced = "file://" + (spaced.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/."))) ?? "")
        let url = "mailto:a@example.org?attach=" + plain
            + "&attachment=" + (escapedSpaced.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            // senddoc's way: file:// and the raw path, escaped once, in the URL.
            + "&attach=file://" + percent.replacingOccurrences(of: "%", with: "%25")
            + "&x-other=1"
        let email = try LocalAttachments.trusting(try MailtoURL.parse(url), .local)
        #expect(email.attachments == [.file(plain), .file(spaced), .file(percent)])
        #expect(email.requestedAttachments.isEmpty)
        #expect(email.dropped.map(\.name) == ["x-other"])
    }

    @Test func aURLWithoutAttachmentsIsUnchanged() throws {
        let email = try MailtoURL.parse("mailto:a@example.org?subject=Hi")
        #expect(try LocalAttachments.trusting(email, .local) == email)
        #expect(try LocalAttachments.trusting(email, .none) == email)
    }

    @Test(arguments: [
        ("relative/file.txt", "not a full path or a file: URI"),
        ("file://example.org/etc/passwd", "not a file on this machine"),
        ("/nonexistent/mailto-route/file", "does not exist"),
        ("/tmp", "is a folder, not a file"),
        ("/dev/null", "is not a regular file"),
    ])
    func fileThatCannotBeAttachedIsAnInputError(value: String, reason: String) throws {
        var email = EmailData(to: ["a@example.org"])
        email.requestedAttachments = [value]
        #expect {
            try LocalAttachments.trusting(email, .local)
        } throws: { error in
            guard let failure = error as? Failure else { return false }
            return failure.kind == .input && failure.message.hasSuffix(reason) && failure.message.contains("cannot attach")
        }
    }

    /// A web page's files stay requested, whatever they name, and a file: URI becomes the
    /// full path a person reads and a tick would attach; the attach hfield stays named.
    @Test func untrustedFilesStayRequestedAsFullPaths() throws {
        let files = try Files()
        let key = try files.write("id_rsa")
        let url = "mailto:a@example.org?attach=file://" + key + "&attach=/etc/shadow-nonexistent&attach=https://example.org/x"
        let email = try LocalAttachments.trusting(try MailtoURL.parse(url), .none)
        #expect(email.attachments.isEmpty)
        #expect(email.requestedAttachments == [key, "/etc/shadow-nonexistent", "https://example.org/x"])
        #expect(email.dropped.map(\.name) == ["attach"])
    }

    /// xdg-email's --attach files only: the one the URL adds beside them stays requested.
    @Test func onlyTheFilesTheTrustNamesAreAttached() throws {
        let files = try Files()
        let given = try files.write("report.pdf")
        let added = try files.write("id_rsa")
        let email = try LocalAttachments.trusting(
            try MailtoURL.parse("mailto:a@example.org?attach=\(given)&attach=file://\(added)"),
            AttachmentTrust(files: .only([given]), requester: "bash"))
        #expect(email.attachments == [.file(given)])
        #expect(email.requestedAttachments == [added])
        #expect(email.dropped.map(\.name) == ["attach"])
    }

    /// A Latin-1 name (`caf\xE9.txt`), made from its bytes, in `files`' directory; its path
    /// as a `LocalPath` (`file://…/caf%E9.txt`).
    func latin1File(in files: Files) throws -> String {
        let bytes = Array(files.directory.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".txt".utf8)
        let made = (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { creat($0.baseAddress!, 0o600) }
        }
        #expect(made >= 0)
        close(made)
        return LocalPath.text(bytes)
    }

    /// A name that is not UTF-8 keeps its bytes: from the URL's escapes (`%E9`), and from
    /// the cut xdg-email's iconv makes of it (`…/caf`) when its own --attach named the file.
    @Test func aNameThatIsNotUTF8IsAttachedUnderItsBytes() throws {
        let files = try Files()
        let path = try latin1File(in: files)
        #expect(path.hasPrefix("file://") && path.hasSuffix("/caf%E9.txt"), "\(path)")
        let escaped = "mailto:a@example.org?attach=" + files.directory.path + "/caf%E9.txt"
        #expect(try LocalAttachments.trusting(try MailtoURL.parse(escaped), .local).attachments == [.file(path)])
        let xdgEmail = AttachmentTrust(files: .only([path]), requester: "bash")
        #expect(try LocalAttachments.trusting(try MailtoURL.parse(escaped), xdgEmail).attachments == [.file(path)])
        let cut = try LocalAttachments.trusting(try MailtoURL.parse("mailto:?attach=" + files.directory.path + "/caf"), xdgEmail)
        #expect(cut.attachments == [.file(path)] && cut.requestedAttachments.isEmpty, "\(cut)")
        // The cut of a file xdg-email was not given names nothing.
        let stranger = try LocalAttachments.trusting(try MailtoURL.parse("mailto:?attach=" + files.directory.path + "/caf"),
                                                     AttachmentTrust(files: .only([]), requester: "bash"))
        #expect(stranger.attachments.isEmpty)
        // Shown as GLib shows such a name.
        #expect(Attachment.file(path).fileName == "caf\u{FFFD}.txt")
        #expect(AttachableFile(path: path).size == 0)
    }

    /// The words the command line hands the sheet program carry the trust unchanged.
    @Test(arguments: [
        AttachmentTrust.none, .local, AttachmentTrust(files: .only(["/a b", "/c"]), requester: "Chromium"),
        AttachmentTrust(files: .all, requester: "LibreOffice"),
    ])
    func trustSurvivesItsWords(trust: AttachmentTrust) throws {
        var words = ["open", "mailto:a@example.org"] + trust.words + ["--json"]
        #expect(AttachmentTrust.take(from: &words) == trust)
        #expect(words == ["open", "mailto:a@example.org", "--json"])
    }
}
