import Foundation
import MailtoCore
import Testing
import TestSupport
@testable import MIMEMessage

private let jane = try! Mailbox(parsing: "Jane Doe <jane@example.org>")

private func text(_ email: EmailData, date: Int = 0) throws -> String {
    let message = try OutgoingMessage(from: jane, email: email, date: date, messageID: "<fixed@example.org>")
    return String(decoding: try message.makeStream().readAll(), as: UTF8.self)
}

private func headerBlock(_ message: String) -> String {
    String(message[..<(message.range(of: "\r\n\r\n")?.lowerBound ?? message.endIndex)])
}

/// What Python's `email` package (policy=default) reads in `message`
/// (TestSupport's `pythonView(of:)`): the judge of our encoding, never our own decoders.
private func pythonView(of message: String, utf8Headers: Bool = false) throws -> [String: Any] {
    try pythonView(ofBytes: Array(message.utf8), utf8Headers: utf8Headers)
}

private func pythonView(ofBytes bytes: [UInt8], utf8Headers: Bool = false) throws -> [String: Any] {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("mime-\(UUID().uuidString).eml")
    try Data(bytes).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let view = try pythonView(of: file, utf8Headers: utf8Headers)
    #expect(view["defects"] as? [String] == [], "Python found defects in the message")
    return view
}

/// The length of `bytes` (CRLF line ends) once Python's smtplib has doubled the dots that
/// start a line for DATA (`smtplib.quotedata`): an independent count of what a client sends.
private func smtplibQuotedLength(_ bytes: [UInt8]) throws -> Int? {
    let script = "import smtplib, sys; sys.stdout.write(str(len(smtplib.quotedata(sys.stdin.buffer.read().decode('latin-1')))))"
    return Int(try run("/usr/bin/python3", ["-c", script], stdin: Data(bytes)).stdout)
}

/// The display name and address of each mailbox in header `name`, as Python reads them.
private func mailboxes(_ view: [String: Any], _ name: String) -> [[String]] {
    let list = (view["addresses"] as? [String: Any])?[name] as? [[String: String]] ?? []
    return list.map { [$0["name"] ?? "?", $0["address"] ?? "?"] }
}

@Suite struct MessageBuilderTests {
    /// Rule 10: a message built where the locale is German, Turkish or Persian (the thread's
    /// own, with `uselocale`, as GTK's `setlocale(LC_ALL, "")` makes the desktop service's)
    /// is the same on the wire as in the C locale: English day and month names in `Date`,
    /// an ASCII header block, no defect Python's `email` finds. The locales are made by
    /// `scripts/install-deps test`.
    @Test(arguments: ["de_DE.UTF-8", "tr_TR.UTF-8", "fa_IR.UTF-8"])
    func theDateAndHeadersDoNotFollowTheLocale(_ name: String) throws {
        let email = EmailData(to: ["joe@bücher.example", "IRMAK@EXAMPLE.COM"], subject: "Grüße, İyi günler", body: "1.5 × 2\r\n",
                              attachments: [Attachment(content: .data(Array("x".utf8)), mimeType: "text/plain", fileName: "Übersicht.txt")])
        let english = try text(email, date: 1_796_538_331)
        let locale = try #require(newlocale(LC_CTYPE_MASK | LC_NUMERIC_MASK | LC_TIME_MASK | LC_COLLATE_MASK | LC_MONETARY_MASK | LC_MESSAGES_MASK, name, nil), "\(name) is not made on this machine (scripts/install-deps test)")
        defer { freelocale(locale) }
        let before = uselocale(locale)
        let localized = Result { try text(email, date: 1_796_538_331) }
        uselocale(before)
        let message = try localized.get()
        #expect(headerBlock(message).hasPrefix("Date: Sun, 06 Dec 2026 06:25:31 +0000\r\n"))
        // The boundary is random: the rest is the same bytes.
        func boundaryless(_ text: String) -> String { text.replacing(/=_mr_[0-9a-f]+/, with: "=_mr_") }
        #expect(boundaryless(message) == boundaryless(english))
        let view = try pythonView(of: message, utf8Headers: false)
        #expect(wireProblems(in: view) == [])
        #expect(view["date"] as? String == "2026-12-06T06:25:31+00:00")
    }

    @Test func plainMessageHasTheRequiredHeadersWithCRLF() throws {
        let message = try text(EmailData(to: ["joe@example.com"], subject: "Hello", body: "Hi Joe\r\n"))
        let headers = headerBlock(message)
        #expect(headers.hasPrefix("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"))
        #expect(headers.contains("From: Jane Doe <jane@example.org>\r\n"))
        #expect(headers.contains("To: joe@example.com\r\n"))
        #expect(headers.contains("Subject: Hello\r\n"))
        #expect(headers.contains("Message-ID: <fixed@example.org>\r\n"))
        #expect(headers.contains("MIME-Version: 1.0\r\n"))
        #expect(message.contains("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nHi Joe\r\n"))
        #expect(!message.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        let view = try pythonView(of: message)
        let python = try #require(view["headers"] as? [String: String])
        #expect(python["Subject"] == "Hello")
        #expect(python["Message-ID"] == "<fixed@example.org>")
        #expect(mailboxes(view, "From") == [["Jane Doe", "jane@example.org"]])
        #expect(mailboxes(view, "To") == [["", "joe@example.com"]])
        #expect((view["parts"] as? [[String: Any]])?.map { $0["text"] as? String } == ["Hi Joe\r\n"])
    }

    @Test func bccNeverAppearsInTheMessageButIsARecipient() throws {
        let email = EmailData(to: ["a@example.com"], bcc: ["secret@example.com"], body: "x")
        let message = try OutgoingMessage(from: jane, email: email)
        let bytes = String(decoding: try message.makeStream().readAll(), as: UTF8.self)
        #expect(!bytes.contains("secret"))
        // No Bcc field (a substring check would also catch "bcc" in the random hex of the
        // Message-ID, now and then).
        #expect(!bytes.lowercased().split(separator: "\r\n").contains { $0.hasPrefix("bcc:") })
        #expect(message.recipients.map(\.address) == ["a@example.com", "secret@example.com"])
    }

    @Test func recipientsAreDeduplicatedAcrossToCcAndBcc() throws {
        let email = EmailData(to: ["a@example.com", "a@EXAMPLE.com"], cc: ["b@example.com"], bcc: ["a@example.com", "b@example.com"])
        let message = try OutgoingMessage(from: jane, email: email)
        #expect(message.recipients.map(\.address) == ["a@example.com", "b@example.com"])
    }

    @Test func messageIDIsGeneratedOnceAndUsesTheSenderDomain() throws {
        let message = try OutgoingMessage(from: jane, email: EmailData(to: ["a@example.com"]))
        #expect(message.messageID.hasPrefix("<") && message.messageID.hasSuffix("@example.org>"))
        let first = String(decoding: try message.makeStream().readAll(), as: UTF8.self)
        let second = String(decoding: try message.makeStream().readAll(), as: UTF8.self)
        #expect(first == second)
        #expect(first.contains("Message-ID: \(message.messageID)\r\n"))
    }

    @Test func nonASCIISubjectIsEncodedAndFolded() throws {
        let subject = String(repeating: "Grüße aus Köln, ", count: 8)
        let message = try text(EmailData(to: ["a@example.com"], subject: subject))
        let headers = headerBlock(message)
        #expect(headers.contains("Subject: =?utf-8?B?"))
        for line in headers.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 78) }
        let python = try #require(try pythonView(of: message)["headers"] as? [String: String])
        #expect(python["Subject"] == subject)
    }

    @Test func longASCIISubjectIsFoldedAtWhitespace() throws {
        let subject = Array(repeating: "word", count: 60).joined(separator: " ")
        let message = try text(EmailData(to: ["a@example.com"], subject: subject))
        let headers = headerBlock(message)
        for line in headers.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 78) }
        // Folded, not encoded: no encoded word, and only whitespace where it was folded
        // (Python unfolds by taking out each CRLF).
        #expect(!headers.contains("=?"))
        let python = try #require(try pythonView(of: message)["headers"] as? [String: String])
        #expect(python["Subject"] == subject)
    }

    @Test func nonASCIIDisplayNameIsEncoded() throws {
        let from = try Mailbox(parsing: "\"Jörg Müller\" <jorg@example.org>")
        #expect(from.displayName == "Jörg Müller")
        let message = try OutgoingMessage(from: from, email: EmailData(to: ["a@example.com"]), messageID: "<x@y>")
        let text = String(decoding: try message.makeStream().readAll(), as: UTF8.self)
        let headers = headerBlock(text)
        #expect(headers.contains("From: =?utf-8?B?"))
        #expect(headers.contains("<jorg@example.org>"))
        #expect(mailboxes(try pythonView(of: text), "From") == [["Jörg Müller", "jorg@example.org"]])
    }

    @Test func displayNameWithSpecialsIsQuoted() throws {
        let from = try Mailbox("jane@example.org", displayName: "Doe, Jane")
        let message = try OutgoingMessage(from: from, email: EmailData(to: ["a@example.com"]), messageID: "<x@y>")
        let text = String(decoding: try message.makeStream().readAll(), as: UTF8.self)
        #expect(headerBlock(text).contains("From: \"Doe, Jane\" <jane@example.org>\r\n"))
        #expect(mailboxes(try pythonView(of: text), "From") == [["Doe, Jane", "jane@example.org"]])
    }

    @Test func internationalDomainBecomesPunycode() throws {
        #expect(IDNA.asciiDomain("bücher.example") == "xn--bcher-kva.example")
        #expect(IDNA.asciiDomain("例え.テスト") == "xn--r8jz45g.xn--zckzah")
        // UTS 46 through GLib: one domain however its ü is written (NFC), in capitals or
        // full-width letters; ß stays ß (nontransitional), not the other domain "strasse".
        #expect(IDNA.asciiDomain("bu\u{308}cher.example") == "xn--bcher-kva.example")
        #expect(IDNA.asciiDomain("BÜCHER.Example") == "xn--bcher-kva.example")
        #expect(IDNA.asciiDomain("bücher.ｅｘａｍｐｌｅ") == "xn--bcher-kva.example")
        #expect(IDNA.asciiDomain("straße.de") == "xn--strae-oqa.de")
        #expect(IDNA.asciiDomain("bücher.example.") == "xn--bcher-kva.example.")
        // ASCII as written; what GLib refuses, as typed (the server judges it).
        #expect(IDNA.asciiDomain("Example.ORG") == "Example.ORG")
        #expect(IDNA.asciiDomain("bü cher.example") == "bü cher.example")
        let message = try OutgoingMessage(from: jane, email: EmailData(to: ["joe@bücher.example"]))
        #expect(message.recipients.first?.asciiAddress == "joe@xn--bcher-kva.example")
        let text = String(decoding: try message.makeStream().readAll(), as: UTF8.self)
        #expect(text.contains("To: joe@xn--bcher-kva.example\r\n"))
        #expect(mailboxes(try pythonView(of: text), "To") == [["", "joe@xn--bcher-kva.example"]])
    }

    @Test(arguments: ["Hi\r\nBcc: evil@example.com", "Hi\nX: y", "Hi\0"])
    func lineBreakInSubjectIsRefused(_ subject: String) {
        #expect(throws: MIMEError.self) { try OutgoingMessage(from: jane, email: EmailData(to: ["a@example.com"], subject: subject)) }
    }

    @Test(arguments: ["a@example.com\r\nRCPT TO:<b@x>", "no-at-sign", "a@", "@example.com", "a b@example.com", "a@exa mple.com",
                      "jö rg@example.com", "\"jörg\"@example.com", ".jörg@example.com"])
    func invalidAddressIsRefused(_ address: String) {
        #expect(throws: MIMEError.self) { try OutgoingMessage(from: jane, email: EmailData(to: [address])) }
    }

    /// RFC 6531 §3.3, RFC 6532: a local part that is not ASCII is an address; it goes into
    /// the header as UTF-8 (an address has no encoded form), and only it needs SMTPUTF8
    /// (the domain goes as its A-label).
    @Test func internationalLocalPartIsWrittenAsUTF8AndNeedsSMTPUTF8() throws {
        let message = try OutgoingMessage(from: jane, email: EmailData(to: ["jörg@bücher.example", "joe@bücher.example"],
                                                                        names: ["jörg@bücher.example": "Jörg Müller"]))
        #expect(message.recipients.map(\.needsSMTPUTF8) == [true, false])
        #expect(message.recipients.map(\.asciiAddress) == ["jörg@xn--bcher-kva.example", "joe@xn--bcher-kva.example"])
        #expect(!jane.needsSMTPUTF8)
        let text = String(decoding: try message.makeStream().readAll(), as: UTF8.self)
        #expect(mailboxes(try pythonView(of: text, utf8Headers: true), "To") == [
            ["Jörg Müller", "jörg@xn--bcher-kva.example"], ["", "joe@xn--bcher-kva.example"],
        ])
    }

    /// Nothing lost (docs/design.md rule 3): a draft keeps such an address, for a server
    /// that offers SMTPUTF8 or a mail program to send it.
    @Test func aDraftKeepsAnInternationalAddress() throws {
        let (draft, warnings) = OutgoingMessage.draft(of: EmailData(to: ["jörg@example.org"], subject: "Hi"), from: jane)
        #expect(warnings.isEmpty)
        let text = String(decoding: try draft.makeStream().readAll(), as: UTF8.self)
        #expect(mailboxes(try pythonView(of: text, utf8Headers: true), "To") == [["", "jörg@example.org"]])
    }

    /// What libcurl writes between DATA and the final dot, which the SIZE it declares
    /// must match (`MessageStream.dotStuffedSize`), judged by Python's smtplib's own
    /// quoting (`smtplib.quotedata`) of the same bytes.
    @Test(arguments: [
        "", ".", "..\r\n", "a\r\n.b\r\n.\r\n", ".first\r\nx.y\r\n\r\n..two\r\n", "a\r\n\r\n.b", "end\r\n.",
    ])
    func dotStuffedSizeCountsEveryDotThatStartsALine(_ body: String) throws {
        let bytes = Array(body.utf8)
        let quoted = try smtplibQuotedLength(bytes)
        #expect(try MessageStream(bytes: bytes).dotStuffedSize() == quoted)
        // A queued message is counted from its file, as it is sent.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dots-\(UUID().uuidString).eml")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try MessageStream(messageFile: file.path).dotStuffedSize() == quoted)
    }

    /// A built message's dots are counted across its parts: a text part's lines may start
    /// with one (libcurl doubles it), base64 never holds one.
    @Test func dotStuffedSizeOfABuiltMessageCountsItsTextsDots() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dots-\(UUID().uuidString).bin")
        try Data(".\r\n.\r\n".utf8 + (0..<3000).map { UInt8(truncatingIfNeeded: $0) }).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let email = EmailData(to: ["joe@example.com"], body: "...\n.a\nb.\n.", attachments: [.file(file.path)])
        let message = try OutgoingMessage(from: jane, email: email)
        let bytes = try message.makeStream().readAll()
        #expect(try message.makeStream().dotStuffedSize() == (try smtplibQuotedLength(bytes)))
        #expect(try message.makeStream().dotStuffedSize() == bytes.count + 3)
    }

    @Test func nonASCIIBodyIsQuotedPrintable() throws {
        let body = "Grüße\r\n" + String(repeating: "x", count: 100) + " \r\n"
        let message = try text(EmailData(to: ["a@example.com"], body: body))
        #expect(message.contains("Content-Transfer-Encoding: quoted-printable\r\n\r\nGr=C3=BC=C3=9Fe\r\n"))
        #expect(message.contains("=20\r\n"))
        for line in message.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 78) }
        // Soft line breaks and =20 undone by Python, the body is the one given.
        #expect((try pythonView(of: message)["parts"] as? [[String: Any]])?.map { $0["text"] as? String } == [body])
    }

    @Test func bareLineFeedsInTheBodyBecomeCRLF() throws {
        let message = try text(EmailData(to: ["a@example.com"], body: "one\ntwo\rthree\r\n"))
        #expect(message.hasSuffix("\r\n\r\none\r\ntwo\r\nthree\r\n"))
    }

    @Test func htmlBodyBecomesAlternativeWithADerivedTextPart() throws {
        let html = "<html><head><style>p{}</style></head><body><p>Hello <b>Joe</b> &amp; co</p><ul><li>one</li></ul></body></html>"
        let message = try text(EmailData(to: ["a@example.com"], body: html, isBodyHTML: true))
        #expect(message.contains("Content-Type: multipart/alternative;"))
        #expect(message.contains("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nHello Joe & co\r\n- one\r\n--"))
        #expect(message.contains("Content-Type: text/html; charset=utf-8\r\n"))
        let parts = try #require(try pythonView(of: message)["parts"] as? [[String: Any]])
        #expect(parts.map { $0["type"] as? String } == ["multipart/alternative", "text/plain", "text/html"])
        #expect(parts.dropFirst().map { $0["text"] as? String } == ["Hello Joe & co\r\n- one", html])
    }

    @Test func attachmentIsBase64WithFileNameAndStreamsByteIdentically() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }
        let path = directory.appendingPathComponent("report 2024.pdf").path
        try Data(content).write(to: URL(fileURLWithPath: path))
        let email = EmailData(to: ["a@example.com"], body: "see attached", attachments: [.file(path)])
        let message = try OutgoingMessage(from: jane, email: email)
        // Read in odd-sized chunks: the result must not depend on how libcurl asks.
        let stream = try message.makeStream()
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1237)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            if count == 0 { break }
            all += buffer[0..<count]
        }
        #expect(all.count == message.size)
        let text = String(decoding: all, as: UTF8.self)
        #expect(text.contains("Content-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"report 2024.pdf\"\r\n"))
        let start = try #require(text.range(of: "Content-Transfer-Encoding: base64\r\n\r\n"))
        let rest = text[start.upperBound...]
        let end = try #require(rest.range(of: "\r\n--"))
        let lines = rest[..<end.lowerBound].components(separatedBy: "\r\n")
        #expect(lines.dropLast().allSatisfy { $0.count == 76 })
        // The bytes as read in chunks, decoded by Python: the file, byte for byte.
        let parts = try #require(try pythonView(ofBytes: all)["parts"] as? [[String: Any]])
        let attachment = try #require(parts.last)
        #expect(parts.count == 3)
        #expect(attachment["type"] as? String == "application/pdf")
        #expect(attachment["disposition"] as? String == "attachment")
        #expect(attachment["filename"] as? String == "report 2024.pdf")
        #expect(attachment["size"] as? Int == content.count)
        #expect(attachment["sha256"] as? String == sha256(Data(content)))
    }

    @Test func nonASCIIFileNameUsesRFC2231() throws {
        let email = EmailData(to: ["a@example.com"], attachments: [Attachment(content: .data([1, 2, 3]), fileName: "Übersicht – März.txt")])
        let message = try text(email)
        #expect(message.contains("filename*=utf-8''%C3%9Cbersicht%20%E2%80%93%20M%C3%A4rz.txt"))
        #expect(message.contains("Content-Type: text/plain\r\n"))
        let attachment = try #require((try pythonView(of: message)["parts"] as? [[String: Any]])?.last)
        #expect(attachment["filename"] as? String == "Übersicht – März.txt")
        #expect(attachment["disposition"] as? String == "attachment")
        #expect(attachment["sha256"] as? String == sha256(Data([1, 2, 3])))
    }

    @Test func missingAttachmentIsRefusedBeforeSending() {
        #expect(throws: MIMEError.self) {
            try OutgoingMessage(from: jane, email: EmailData(to: ["a@example.com"], attachments: [.file("/nonexistent/x.pdf")]))
        }
    }

    @Test func sizeMatchesTheStreamForEveryShape() throws {
        for count in [0, 1, 2, 3, 56, 57, 58, 114, 1000] {
            let data = [UInt8](repeating: 0x41, count: count)
            let email = EmailData(to: ["a@example.com"], body: "<p>x</p>", isBodyHTML: true,
                                  attachments: [Attachment(content: .data(data), fileName: "a.bin")])
            let message = try OutgoingMessage(from: jane, email: email)
            #expect(try message.makeStream().readAll().count == message.size)
        }
    }
}
