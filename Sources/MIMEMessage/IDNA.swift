internal import CGIO
internal import MailtoCore

/// IDNA for domains in addresses (RFC 5891 A-labels), so that a message to
/// `jörg@bücher.example` needs no SMTPUTF8 from the server: GLib's `g_hostname_to_ascii`
/// and `g_hostname_to_unicode`, which map as UTS 46 does (nontransitional: `straße` keeps
/// its ß, as browsers and DENIC have it, rather than becoming `strasse`, another domain),
/// normalise to NFC (a `ü` written as `u` and a combining diaeresis is the same domain), and
/// encode with Punycode (RFC 3492).
public enum IDNA {
    /// `domain` as A-labels (`xn--` + Punycode for every label that is not ASCII, the rest
    /// lower-cased); an ASCII domain unchanged, and one GLib refuses as it was written: the
    /// server judges it.
    public static func asciiDomain(_ domain: String) -> String {
        // Lower-cased first, by Unicode's rules alone: GLib lower-cases with the process's
        // LC_CTYPE, and under a Turkish locale `Iö.example` became `ıö.example` (a dotless ı:
        // another domain) and `İ` lost the dot UTS 46 keeps (rule 10: the wire never follows
        // the locale).
        guard domain.utf8.contains(where: { $0 >= 0x80 }),
              let made = g_hostname_to_ascii(domain.lowercased()) else { return domain }
        defer { g_free(made) }
        let ascii = String(cString: made)
        // GLib drops a final dot (a fully qualified name): kept as written.
        return domain.hasSuffix(".") && !ascii.hasSuffix(".") ? ascii + "." : ascii
    }

    /// `domain` as a person reads it: every `xn--` label decoded (`xn--bcher-kva.example` is
    /// `bücher.example`); a label that does not decode to something, and every other, as it is.
    public static func unicodeDomain(_ domain: String) -> String {
        guard domain.utf8.count > 4, domain.asciiLowercased().contains("xn--") else { return domain }
        return domain.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            let lowered = label.asciiLowercased()
            guard lowered.hasPrefix("xn--"), let made = g_hostname_to_unicode(lowered) else { return String(label) }
            defer { g_free(made) }
            let text = String(cString: made)
            return text.isEmpty || text.contains(".") ? String(label) : text
        }.joined(separator: ".")
    }
}
