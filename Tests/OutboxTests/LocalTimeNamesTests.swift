#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Outbox

/// The names of days a person reads follow their locale's `LC_TIME` (a Send Later next
/// week reads "Di 14:45" in German), made for the call alone: the wire's dates never do
/// (MIMEMessage's Date header, rule 10).
@Suite struct LocalTimeNamesTests {
    /// Sunday 6 December 2026 to Saturday 12 December, at noon UTC.
    func day(_ offset: Int) -> tm {
        var seconds = time_t(1_796_558_400 + offset * 86_400)
        var fields = tm()
        _ = gmtime_r(&seconds, &fields)
        return fields
    }

    @Test(arguments: [
        ("de_DE.UTF-8", ["So", "Mo", "Di", "Mi", "Do", "Fr", "Sa"]),
        ("C", ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]),
    ])
    func weekdayNamesAreTheLocales(locale: String, names: [String]) {
        #expect((0..<7).map { Timestamp.weekdayName(day($0), locale: locale) } == names)
    }

    /// A locale that is not installed reads as the C locale, never as nothing.
    @Test func aLocaleNotInstalledGivesTheEnglishName() {
        #expect(Timestamp.weekdayName(day(2), locale: "xx_XX.UTF-8") == "Tue")
    }
}
