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
        // (lastIndex, not split and joined: those are the standard library's unspecialised
        // generic code, which cost 170,000 instructions at every start.)
        let directory = executable.lastIndex(of: "/").map { String(executable[..<$0]) } ?? ""
        for candidate in [directory + "/../share/locale", directory + "/../../locale"] where access(candidate, F_OK) == 0 {
            bindtextdomain(domain, candidate)
            break
        }
        bind_textdomain_codeset(domain, "UTF-8")
        // The program's own domain is the default one, as every GNOME program sets it (gio's
        // main does with glib20). GLib and GTK translate their own messages only while that
        // domain has a catalog for the language (or the language is English or C), so that a
        // window never mixes two languages; left at "messages", every message GLib marks
        // was looked up, and GIO looks up 132 as it starts (gettext searching for a catalog
        // that is not there: a quarter of a million instructions of each click in C.UTF-8).
        textdomain(domain)
    }
}

/// `message` in the user's language: wraps `dgettext` in the `mailto-route` domain. A
/// message with values has `%@` where each goes, in order (`%1$@`, `%2$@` where a language
/// puts them in another order), `%%` a percent sign: `tr("Sent to %@", name)`. Never a Swift interpolation
/// inside the message: the extraction (`make update-po`) reads the literal as written.
public func tr(_ message: String, _ values: any CustomStringConvertible...) -> String {
    // dgettext answers with the very pointer it was given when there is no translation:
    // the C string must outlive the copy made of the answer, so both happen inside one
    // withCString (a pointer Swift makes for a call is gone when that call returns).
    let translated = message.withCString { original in
        guard let answer = dgettext(Localization.domain, original), UnsafePointer(answer) != original else { return message }
        return String(cString: answer)
    }
    // Filled even without values: a written `%%` is a percent sign either way.
    return fill(translated, with: values.map(\.description))
}

/// The form of a message a number decides (`count`), in the user's language: wraps
/// `dngettext`, whose plural rule is the catalog's (German's is English's; Polish has three
/// forms). `trn("%@ message waits", "%@ messages wait", n, n)`: the number is one of the
/// values only when the message says it.
public func trn(_ singular: String, _ plural: String, _ count: Int, _ values: any CustomStringConvertible...) -> String {
    let translated = singular.withCString { one in
        plural.withCString { many in
            let n = UInt(clamping: count)
            let english = n == 1 ? singular : plural
            guard let answer = dngettext(Localization.domain, one, many, n),
                  UnsafePointer(answer) != one, UnsafePointer(answer) != many else { return english }
            return String(cString: answer)
        }
    }
    return fill(translated, with: values.map(\.description))
}

/// Puts `values` in place of the `%@` (in order) and `%N$@` (the Nth) of `format`; `%%` is
/// a percent sign. Read as UTF-8 (every mark it looks for is ASCII): a message is filled
/// for every line a flush of thousands reports, and reading it as Characters cost more
/// than looking up its translation.
func fill(_ format: String, with values: [String]) -> String {
    let utf8 = format.utf8
    let percentSign = UInt8(ascii: "%")
    guard utf8.contains(percentSign) else { return format }
    var result = ""
    var next = 0
    // Copied up to `copied`; looking for the next mark from `position`.
    var copied = utf8.startIndex
    var position = copied
    // String's own append(contentsOf: Substring), not `+=`, whose generic form the runtime
    // instantiates at the first message (100,000 instructions) and goes through at each.
    while let percent = utf8[position...].firstIndex(of: percentSign) {
        result.append(contentsOf: format[copied..<percent])
        let after = utf8.index(after: percent)
        let mark = after < utf8.endIndex ? utf8[after] : 0
        if mark == percentSign {
            result += "%"
            position = utf8.index(after: after)
        } else if mark == UInt8(ascii: "@") {
            result += next < values.count ? values[next] : ""
            next += 1
            position = utf8.index(after: after)
        } else if let (number, end) = positionalMark(in: utf8, at: after) {
            result += number >= 1 && number <= values.count ? values[number - 1] : ""
            position = end
        } else {
            result += "%"
            position = after
        }
        copied = position
    }
    result.append(contentsOf: format[copied...])
    return result
}

/// `N$@` at `index` (after a `%`): N, and where the mark ends; `nil` when it is not one.
private func positionalMark(in utf8: String.UTF8View, at index: String.Index) -> (Int, String.Index)? {
    var number = 0
    var position = index
    while position < utf8.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[position]), number < 1_000 {
        number = number * 10 + Int(utf8[position] - UInt8(ascii: "0"))
        position = utf8.index(after: position)
    }
    guard position > index, position < utf8.endIndex, utf8[position] == UInt8(ascii: "$") else { return nil }
    let at = utf8.index(after: position)
    guard at < utf8.endIndex, utf8[at] == UInt8(ascii: "@") else { return nil }
    return (number, utf8.index(after: at))
}

/// Marks `message` for the extraction (`make update-po`) where it is only stored, and
/// translated where it is shown, with `tr(stored)`: gettext's `gettext_noop`. For text kept
/// in tables that a run reads without showing (a command's options, parsed on every run).
@inlinable public func trNoop(_ message: String) -> String { message }
