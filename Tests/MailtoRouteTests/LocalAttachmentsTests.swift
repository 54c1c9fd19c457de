import Foundation
import MailtoRoute
import Testing

/// What `open --local` makes of a local program's URL (LocalAttachments), in-process:
/// the files it names become trusted attachments, or an error that names the one that
/// cannot be attached.
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
        let email = try LocalAttachments.trusting(try MailtoURL.parse(url))
        #expect(email.attachments == [.file(plain), .file(spaced), .file(percent)])
        #expect(email.requestedAttachments.isEmpty)
        #expect(email.dropped.map(\.name) == ["x-other"])
    }

    @Test func aURLWithoutAttachmentsIsUnchanged() throws {
        let email = try MailtoURL.parse("mailto:a@example.org?subject=Hi")
        #expect(try LocalAttachments.trusting(email) == email)
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
            try LocalAttachments.trusting(email)
        } throws: { error in
            guard let failure = error as? Failure else { return false }
            return failure.kind == .input && failure.message.hasSuffix(reason) && failure.message.contains("cannot attach")
        }
    }
}
