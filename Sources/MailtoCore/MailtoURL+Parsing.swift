#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing `mailto:` URLs (RFC 6068), exactly as docs/mailto-rules.md says.
public enum MailtoURL {}

extension MailtoURL {
    /// Parses a `mailto:` URL into the message it describes.
    ///
    /// Split first, decode after: the `?`, then `&` between hfields, then the first `=`
    /// of each; every piece is percent-decoded exactly once, as UTF-8.
    public static func parse(_ url: String) throws(MailtoURLError) -> EmailData {
        var url = url
        do {
            return try url.withUTF8 { bytes throws(MailtoURLError) in try parse(utf8: bytes) }
        } catch let error as MailtoURLError {
            throw error
        } catch {
            preconditionFailure("the parser throws MailtoURLError only, not \(error)")
        }
    }

    /// Parses the UTF-8 bytes of a `mailto:` URL (not necessarily valid UTF-8).
    ///
    /// Raw tabs, CRs and LFs are removed first, as the WHATWG URL parser removes them
    /// (URL Standard, basic URL parser: "remove all ASCII tab or newline from input"): a
    /// link wrapped across lines in a plain-text mail is still the one link. Encoded ones
    /// (`%0D%0A`) are data, as ever. An error's offset is into the URL as given.
    public static func parse(utf8 url: UnsafeBufferPointer<UInt8>) throws(MailtoURLError) -> EmailData {
        guard url.firstIndex(of: tab, in: 0..<url.count) < url.count || url.firstIndex(of: cr, in: 0..<url.count) < url.count
                || url.firstIndex(of: lf, in: 0..<url.count) < url.count
        else { return try parseUnwrapped(url) }
        let kept = url.filter { !isTabOrNewline($0) }
        do {
            return try kept.withUnsafeBufferPointer { bytes throws(MailtoURLError) in try parseUnwrapped(bytes) }
        } catch {
            throw MailtoURLError(error.reason, at: offsetBeforeRemoval(of: error.offset, in: url))
        }
    }

    /// Where the byte at `offset` of `url` without its tabs and newlines is in `url`.
    private static func offsetBeforeRemoval(of offset: Int, in url: UnsafeBufferPointer<UInt8>) -> Int {
        var kept = 0
        for (index, byte) in url.enumerated() where !isTabOrNewline(byte) {
            if kept == offset { return index }
            kept += 1
        }
        return url.count
    }

    /// Parses a URL that holds no raw tab, CR or LF.
    private static func parseUnwrapped(_ url: UnsafeBufferPointer<UInt8>) throws(MailtoURLError) -> EmailData {
        // A decoded piece is never longer than its text, and a body's line breaks at
        // most double it (written after the URL's length); one scratch buffer serves
        // every piece in turn.
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3 * url.count + 2) { scratch throws(MailtoURLError) in
            try Parser(url: url, scratch: scratch).run()
        }
    }
}

// MARK: - The parser

private let percent = UInt8(ascii: "%")
private let questionMark = UInt8(ascii: "?")
private let ampersand = UInt8(ascii: "&")
private let equalsSign = UInt8(ascii: "=")
private let hash = UInt8(ascii: "#")
private let slash = UInt8(ascii: "/")
private let cr: UInt8 = 0x0D
private let lf: UInt8 = 0x0A
private let tab: UInt8 = 0x09

@inline(__always)
private func isTabOrNewline(_ byte: UInt8) -> Bool {
    byte == tab || byte == lf || byte == cr
}

private struct Parser {
    let url: UnsafeBufferPointer<UInt8>
    /// Where decoded pieces go when they differ from their text.
    let scratch: UnsafeMutableBufferPointer<UInt8>

    /// The hfields whose values mailto-route takes.
    enum Field {
        case to, cc, bcc, subject, body
        case header(String)
        case dropped(DroppedField.Reason)
    }

    /// What a decoded piece needs besides percent-decoding.
    /// Bytes below 64 that make an address list more than one plain address: controls,
    /// space, `"`, `,` and `;` (separators) and `>` (a display name's end).
    static let specialInAddress: UInt64 = (1 << 33 - 1) | 1 << UInt64(UInt8(ascii: "\""))
        | 1 << UInt64(UInt8(ascii: ",")) | 1 << UInt64(UInt8(ascii: ";")) | 1 << UInt64(UInt8(ascii: ">"))

    enum LineBreaks {
        /// Kept as they are (names, addresses: these refuse them anyway).
        case kept
        /// Every CRLF, bare CR and bare LF becomes CRLF (the body).
        case crlf
        /// Unfolded (subject, header fields): see `unfold`.
        case unfolded
    }

    func run() throws(MailtoURLError) -> EmailData {
        guard hasMailtoScheme() else { throw MailtoURLError(.notMailto, at: 0) }
        var email = EmailData()
        let schemeEnd = 7
        // A fragment is ignored (docs/mailto-rules.md), and so is anything in it.
        let end = url.firstIndex(of: hash, in: schemeEnd..<url.count)
        let addressEnd = url.firstIndex(of: questionMark, in: schemeEnd..<end)
        let slashAt = url.firstIndex(of: slash, in: schemeEnd..<addressEnd)
        if slashAt < addressEnd { throw MailtoURLError(.slashInAddress, at: slashAt) }
        try appendAddresses(schemeEnd..<addressEnd, to: &email.to, names: &email.names)

        guard addressEnd < end else { return email }
        let secondQuestionMark = url.firstIndex(of: questionMark, in: (addressEnd + 1)..<end)
        if secondQuestionMark < end { throw MailtoURLError(.secondQuestionMark, at: secondQuestionMark) }
        var position = addressEnd + 1
        while position < end {
            let fieldEnd = url.firstIndex(of: ampersand, in: position..<end)
            if fieldEnd > position {
                // An hfield without `=` has an empty value.
                let nameEnd = url.firstIndex(of: equalsSign, in: position..<fieldEnd)
                let valueStart = min(nameEnd + 1, fieldEnd)
                try takeField(name: position..<nameEnd, value: valueStart..<fieldEnd, into: &email)
            }
            position = fieldEnd + 1
        }
        return email
    }

    private func hasMailtoScheme() -> Bool {
        // ASCII-case-insensitive, as schemes are (RFC 3986 §3.1).
        url.count >= 7 && UnsafeBufferPointer(rebasing: url[0..<6]).equalsASCIILowercase("mailto")
            && url[6] == UInt8(ascii: ":")
    }

    // MARK: hfields

    private func takeField(name: Range<Int>, value: Range<Int>, into email: inout EmailData) throws(MailtoURLError) {
        let field = classify(try piece(name))
        switch field {
        case .to:
            try appendAddresses(value, to: &email.to, names: &email.names)
        case .cc:
            try appendAddresses(value, to: &email.cc, names: &email.names)
        case .bcc:
            try appendAddresses(value, to: &email.bcc, names: &email.names)
        case .subject:
            let decoded = try piece(value, lineBreaks: .unfolded)
            var subject = String(decoding: decoded, as: UTF8.self)
            if decoded.containsEncodedWordStart {
                // A decoded word may hold line breaks; the same rule applies to them.
                subject = unfold(EncodedWords.decode(subject))
            }
            // RFC 6068 §6.3: the subject is last-one-wins.
            email.subject = subject
        case .body:
            let body = String(decoding: try piece(value, lineBreaks: .crlf), as: UTF8.self)
            if let previous = email.body {
                email.body = previous + "\r\n" + body
            } else {
                email.body = body
            }
        case .header(let key):
            let decoded = try piece(value, lineBreaks: .unfolded)
            if !decoded.isEmpty {
                email.headers[key] = String(decoding: decoded, as: UTF8.self)
            }
        case .dropped(let reason):
            // Validated all the same: an invalid escape is an error wherever it is.
            let decoded = try piece(value)
            if reason == .attachment, !decoded.isEmpty {
                email.requestedAttachments.append(requestedFile(decoded))
            }
            let nameText = String(decoding: try piece(name), as: UTF8.self).asciiLowercased()
            if !email.dropped.contains(where: { $0.name == nameText }) {
                email.dropped.append(DroppedField(name: nameText, reason: reason))
            }
        }
    }

    /// A file an `attach=` value names, as text that keeps its bytes: as it is when it is
    /// UTF-8; a path that is not, in its `LocalPath` form; a `file:` URI with raw bytes
    /// that are not (a local program's escaped once), those bytes percent-encoded, which
    /// reading the URI decodes again.
    private func requestedFile(_ decoded: UnsafeBufferPointer<UInt8>) -> String {
        if let text = String(validating: decoded, as: UTF8.self) { return text }
        if decoded.first == slash { return LocalPath.text(decoded) }
        var out: [UInt8] = []
        PercentEncoding.encode(decoded, into: &out) { $0 < 0x80 }
        return String(decoding: out, as: UTF8.self)
    }

    /// Matches a decoded hfield name, ASCII-case-insensitively only (`ſubject` with
    /// U+017F is not `subject`).
    private func classify(_ name: UnsafeBufferPointer<UInt8>) -> Field {
        switch name.count {
        case 2:
            if name.equalsASCIILowercase("to") { return .to }
            if name.equalsASCIILowercase("cc") { return .cc }
        case 3:
            if name.equalsASCIILowercase("bcc") { return .bcc }
        case 4:
            if name.equalsASCIILowercase("body") { return .body }
        case 7:
            if name.equalsASCIILowercase("subject") { return .subject }
        case 8:
            if name.equalsASCIILowercase("keywords") { return .header("keywords") }
        case 10:
            if name.equalsASCIILowercase("references") { return .header("references") }
        case 11:
            if name.equalsASCIILowercase("in-reply-to") { return .header("in-reply-to") }
        default:
            break
        }
        return .dropped(dropReason(name))
    }

    private func dropReason(_ name: UnsafeBufferPointer<UInt8>) -> DroppedField.Reason {
        // RFC 6068 §7: originator and trace fields, and MIME structure, are not the URL's
        // to set; a URL never attaches a local file.
        let originators: [StaticString] = ["from", "sender", "reply-to", "date", "message-id", "received", "return-path"]
        for originator in originators where name.equalsASCIILowercase(originator) {
            return .originatorOrTrace
        }
        if name.hasASCIILowercasePrefix("resent-") { return .originatorOrTrace }
        if name.equalsASCIILowercase("mime-version") || name.hasASCIILowercasePrefix("content-") {
            return .mimeStructure
        }
        let attachments: [StaticString] = ["attach", "attachment", "attachments"]
        for attachment in attachments where name.equalsASCIILowercase(attachment) {
            return .attachment
        }
        return .unknown
    }

    // MARK: Addresses

    /// Decodes an address list, then splits it on commas and semicolons outside double
    /// quotes (Outlook separates addresses with `;`, and people paste its lists); a display
    /// name is removed (`Joe <j@x>` gives `j@x`).
    private func appendAddresses(_ range: Range<Int>, to list: inout [String], names: inout [String: String]) throws(MailtoURLError) {
        guard !range.isEmpty else { return }
        let decoded = try piece(range)
        // Most lists are one plain address: no quotes, no display name, nothing to trim,
        // nothing to refuse. Take it as it is.
        var isPlain = true
        for byte in decoded where byte >= 0x7F || (byte < 64 && (Self.specialInAddress >> UInt64(byte)) & 1 != 0) {
            isPlain = false
            break
        }
        if isPlain {
            let address = String(decoding: decoded, as: UTF8.self)
            // A literal allocates exactly once; appending to an empty array grows it.
            if list.isEmpty { list = [address] } else { list.append(address) }
            return
        }
        var sawNonASCII = false
        var start = 0
        var inQuotes = false
        var escaped = false
        for index in 0...decoded.count {
            if index < decoded.count {
                let byte = decoded[index]
                if byte <= cr {
                    if byte == cr || byte == lf || byte == 0 {
                        throw MailtoURLError(.controlCharacterInAddress, at: range.lowerBound)
                    }
                } else if byte >= 0x80 {
                    sawNonASCII = true
                }
                if escaped {
                    escaped = false
                    continue
                }
                if inQuotes {
                    if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inQuotes = false
                    }
                    continue
                }
                if byte == UInt8(ascii: "\"") { inQuotes = true }
                if byte != UInt8(ascii: ","), byte != UInt8(ascii: ";") { continue }
            }
            if let (address, name) = bareAddress(UnsafeBufferPointer(rebasing: decoded[start..<index])) {
                list.append(address)
                // The name given with an address is kept beside it, the last one winning.
                if let name { names[address] = name }
            }
            start = index + 1
        }
        // RFC 5322 §3.2.4: a quoted-string ends with a quote. Without one, where the
        // address ends is anybody's guess, so the URL is refused.
        if inQuotes { throw MailtoURLError(.unterminatedQuote, at: range.lowerBound) }
        if sawNonASCII, String(validating: decoded, as: UTF8.self) == nil {
            throw MailtoURLError(.invalidUTF8InAddress, at: range.lowerBound)
        }
    }

    /// The addr-spec in one comma- or semicolon-separated piece, trimmed, and the display name before
    /// it (`DisplayName.reading`); `nil` for an empty piece.
    private func bareAddress(_ piece: UnsafeBufferPointer<UInt8>) -> (String, String?)? {
        var lower = 0
        var upper = piece.count
        while lower < upper, piece[lower].isASCIIWhitespace { lower += 1 }
        while upper > lower, piece[upper - 1].isASCIIWhitespace { upper -= 1 }
        guard lower < upper else { return nil }
        if piece[upper - 1] == UInt8(ascii: ">") {
            // `Name <addr>`: the last `<` outside double quotes opens the addr-spec.
            var inQuotes = false
            var escaped = false
            var opening = -1
            for index in lower..<(upper - 1) {
                let byte = piece[index]
                if escaped { escaped = false; continue }
                if inQuotes, byte == UInt8(ascii: "\\") { escaped = true; continue }
                if byte == UInt8(ascii: "\"") { inQuotes.toggle() }
                if !inQuotes, byte == UInt8(ascii: "<") { opening = index }
            }
            if opening >= 0 {
                let name = DisplayName.reading(UnsafeBufferPointer(rebasing: piece[lower..<opening]))
                lower = opening + 1
                upper -= 1
                while lower < upper, piece[lower].isASCIIWhitespace { lower += 1 }
                while upper > lower, piece[upper - 1].isASCIIWhitespace { upper -= 1 }
                guard lower < upper else { return nil }
                return (String(decoding: UnsafeBufferPointer(rebasing: piece[lower..<upper]), as: UTF8.self), name)
            }
        }
        return (String(decoding: UnsafeBufferPointer(rebasing: piece[lower..<upper]), as: UTF8.self), nil)
    }

    // MARK: Percent-decoding

    /// The decoded bytes of `range`: the URL's own bytes when decoding changes nothing
    /// (the common case), else decoded exactly once into the scratch buffer.
    private func piece(_ range: Range<Int>, lineBreaks: LineBreaks = .kept) throws(MailtoURLError) -> UnsafeBufferPointer<UInt8> {
        var decoded = UnsafeBufferPointer(rebasing: url[range])
        if url.firstIndex(of: percent, in: range) < range.upperBound {
            // Byte by byte: the runs between escapes are short (a word, mostly), and a
            // plain loop beats a memchr and a copy call per run.
            var written = 0
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = url[index]
                if byte == percent {
                    guard let high = hexValue(url, index + 1, before: range.upperBound),
                          let low = hexValue(url, index + 2, before: range.upperBound)
                    else {
                        throw invalidEscape(at: index, before: range.upperBound)
                    }
                    scratch[written] = high << 4 | low
                    index += 3
                } else {
                    scratch[written] = byte
                    index += 1
                }
                written += 1
            }
            decoded = UnsafeBufferPointer(rebasing: scratch[0..<written])
        }
        guard lineBreaks != .kept,
              decoded.firstIndex(of: cr, in: 0..<decoded.count) < decoded.count
                || decoded.firstIndex(of: lf, in: 0..<decoded.count) < decoded.count
        else { return decoded }
        switch lineBreaks {
        case .kept:
            return decoded
        case .unfolded:
            // In place: unfolding never lengthens. Copy first if the bytes are the URL's.
            let target = UnsafeMutableBufferPointer(rebasing: scratch[0..<decoded.count])
            if UnsafeRawPointer(decoded.baseAddress) != UnsafeRawPointer(scratch.baseAddress) {
                _ = target.initialize(from: decoded)
            }
            return UnsafeBufferPointer(rebasing: target[0..<unfold(target, length: target.count)])
        case .crlf:
            // Into the scratch space after the decoded bytes: at most twice as long.
            let start = url.count
            var written = start
            var previousWasCR = false
            for byte in decoded {
                if byte == lf, previousWasCR {
                    previousWasCR = false
                    continue
                }
                previousWasCR = byte == cr
                if byte == cr || byte == lf {
                    scratch[written] = cr
                    scratch[written + 1] = lf
                    written += 2
                } else {
                    scratch[written] = byte
                    written += 1
                }
            }
            return UnsafeBufferPointer(rebasing: scratch[start..<written])
        }
    }

    private func invalidEscape(at index: Int, before end: Int) -> MailtoURLError {
        let text = UnsafeBufferPointer(rebasing: url[index..<min(index + 3, end)])
        return MailtoURLError(.invalidEscape(String(decoding: text, as: UTF8.self)), at: index)
    }
}

/// The value of the hex digit at `index`, if there is one before `end`.
@inline(__always)
private func hexValue(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int, before end: Int) -> UInt8? {
    index < end ? Hex.value(bytes[index]) : nil
}

/// The line-break rule for `subject` and the other header fields, in place: a line break
/// (CRLF, CR or LF) followed by a space or tab is unfolded away; any other becomes one
/// space. Returns the new length.
func unfold(_ buffer: UnsafeMutableBufferPointer<UInt8>, length: Int) -> Int {
    var read = 0
    var written = 0
    while read < length {
        let byte = buffer[read]
        read += 1
        guard byte == cr || byte == lf else {
            buffer[written] = byte
            written += 1
            continue
        }
        if byte == cr, read < length, buffer[read] == lf { read += 1 }
        if read < length, buffer[read] == UInt8(ascii: " ") || buffer[read] == UInt8(ascii: "\t") {
            continue
        }
        buffer[written] = UInt8(ascii: " ")
        written += 1
    }
    return written
}

/// The same rule on a string, for text that gained line breaks after decoding.
func unfold(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == cr || $0 == lf }) else { return text }
    var bytes = Array(text.utf8)
    let length = bytes.withUnsafeMutableBufferPointer { unfold($0, length: $0.count) }
    return String(decoding: bytes[0..<length], as: UTF8.self)
}

// MARK: - Byte helpers

extension UnsafeBufferPointer<UInt8> {
    /// Whether `=?` occurs: only then can the text hold an RFC 2047 encoded-word.
    var containsEncodedWordStart: Bool {
        guard count >= 2 else { return false }
        for index in 0..<(count - 1) where self[index] == UInt8(ascii: "=") && self[index + 1] == UInt8(ascii: "?") {
            return true
        }
        return false
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Where `byte` first occurs in `range`, or `range.upperBound`; memchr(3) is
    /// vectorised, and the parser's splitting is mostly this.
    @inline(__always)
    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int {
        guard let base = baseAddress, !range.isEmpty,
              let found = memchr(base + range.lowerBound, Int32(byte), range.count)
        else { return range.upperBound }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}

extension UInt8 {
    var isASCIIWhitespace: Bool {
        self == UInt8(ascii: " ") || self == UInt8(ascii: "\t")
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes, ASCII-lower-cased, are `lowercase` (which must be lower case).
    @inline(__always)
    func equalsASCIILowercase(_ lowercase: StaticString) -> Bool {
        guard count == lowercase.utf8CodeUnitCount else { return false }
        return hasASCIILowercasePrefix(lowercase)
    }

    @inline(__always)
    func hasASCIILowercasePrefix(_ lowercase: StaticString) -> Bool {
        let expected = lowercase.utf8Start
        guard count >= lowercase.utf8CodeUnitCount else { return false }
        for index in 0..<lowercase.utf8CodeUnitCount {
            var byte = self[index]
            if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte |= 0x20 }
            if byte != expected[index] { return false }
        }
        return true
    }
}

