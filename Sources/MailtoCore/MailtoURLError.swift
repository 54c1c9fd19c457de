/// Why a `mailto:` URL cannot be read, and where (a byte offset into the URL, from 0).
public struct MailtoURLError: ClassifiedError, Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        /// The URL does not start with `mailto:`.
        case notMailto
        /// A `%` not followed by two hex digits; the text as found.
        case invalidEscape(String)
        /// An unencoded `/` before the `?` (as in `mailto://`).
        case slashInAddress
        /// A second unencoded `?`.
        case secondQuestionMark
        /// A CR, LF or NUL in an address, which could inject a header or SMTP command.
        case controlCharacterInAddress
        /// An address with a `"` that is never closed.
        case unterminatedQuote
        /// Bytes in an address that are not UTF-8.
        case invalidUTF8InAddress
    }

    public var reason: Reason
    public var offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var kind: ErrorKind { .input }

    public var description: String {
        tr("malformed mailto: URL at offset %@: %@", offset, problem)
    }

    /// What is wrong, without where.
    public var problem: String {
        switch reason {
        case .notMailto: tr("not a mailto: URL")
        case .invalidEscape(let text): tr("invalid percent-escape '%@' (a %% must be followed by two hex digits)", text)
        case .slashInAddress: tr("unencoded '/' in the address part (write it as %%2F)")
        case .secondQuestionMark: tr("a second '?' (write it as %%3F)")
        case .controlCharacterInAddress: tr("an address contains a line break or NUL")
        case .unterminatedQuote: tr("an address has a double quote that is never closed")
        case .invalidUTF8InAddress: tr("an address is not valid UTF-8")
        }
    }
}
