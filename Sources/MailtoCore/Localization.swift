#if canImport(Glibc)
import Glibc
#endif
internal import CIntl

/// Everything a person reads goes through gettext (glibc's), in the text domain
/// `mailto-route`: the catalogs are `LANG/LC_MESSAGES/mailto-route.mo` under
/// `$(PREFIX)/share/locale` once installed, and under `.build/locale` for a build run from
/// the tree (`scripts/compile-po`, run by `make` and `make test`). The messages are in
/// `po/mailto-route.pot` (`make update-po` extracts them from the sources: `tr("…")` and the
/// .ui files' translatable strings); `po/de.po` is the German translation.
public enum Localization {
    public static let domain = "mailto-route"

    /// Takes the user's locale for messages and binds the domain to the catalogs beside
    /// this program (installed: `../share/locale`; the tree's build: `.build/locale`).
    /// Once, before anything is said.
    public static func bind() {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        bind(executable: length > 0 ? String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "")
    }

    static func bind(executable: String) {
        // Messages and the character set only: numbers and the like stay as the C locale
        // writes them (a report's JSON, a timestamp).
        setlocale(LC_MESSAGES, "")
        setlocale(LC_CTYPE, "")
        let directory = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        for candidate in [directory + "/../share/locale", directory + "/../../locale"] where access(candidate, F_OK) == 0 {
            bindtextdomain(domain, candidate)
            break
        }
        bind_textdomain_codeset(domain, "UTF-8")
    }
}

/// `message` in the user's language: wraps `dgettext` in the `mailto-route` domain. A
/// message with values has `%@` where each goes, in order (`%1$@`, `%2$@` where a language
/// puts them in another order): `tr("Sent to %@", name)`.
public func tr(_ message: String, _ values: String...) -> String {
    // dgettext answers with the very pointer it was given when there is no translation:
    // the C string must outlive the copy made of the answer, so both happen inside one
    // withCString (a pointer Swift makes for a call is gone when that call returns).
    let translated = message.withCString { original in
        guard let answer = dgettext(Localization.domain, original), UnsafePointer(answer) != original else { return message }
        return String(cString: answer)
    }
    guard !values.isEmpty else { return translated }
    return fill(translated, with: values)
}

/// Puts `values` in place of the `%@` (in order) and `%N$@` (the Nth) of `format`; `%%` is
/// a percent sign.
func fill(_ format: String, with values: [String]) -> String {
    var result = ""
    var next = 0
    var rest = Substring(format)
    while let percent = rest.firstIndex(of: "%") {
        result += rest[..<percent]
        let after = rest[rest.index(after: percent)...]
        if after.hasPrefix("%") {
            result += "%"
            rest = after.dropFirst()
        } else if after.hasPrefix("@") {
            result += next < values.count ? values[next] : ""
            next += 1
            rest = after.dropFirst()
        } else if let dollar = after.firstIndex(of: "$"), let number = Int(after[..<dollar]), after[after.index(after: dollar)...].hasPrefix("@") {
            result += number >= 1 && number <= values.count ? values[number - 1] : ""
            rest = after[after.index(dollar, offsetBy: 2)...]
        } else {
            result += "%"
            rest = after
        }
    }
    return result + rest
}
