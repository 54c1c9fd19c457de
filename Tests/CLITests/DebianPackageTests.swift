import Foundation
import MailtoRoute
import Testing
import TestSupport

/// What `make deb` builds from must agree with the tree, checked without building it
/// (scripts/check-deb judges the package itself, from a release build): one version
/// everywhere, the Build-Depends that install-deps installs, and the metainfo's
/// screenshots there, at the size it says.
@Suite struct DebianPackageTests {
    func text(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The first capture group of `pattern`'s first match in `text`.
    func first(_ pattern: String, in text: String) throws -> String? {
        let regex = try NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        let whole = NSRange(text.startIndex..., in: text)
        guard let match = regex.firstMatch(in: text, range: whole), let range = Range(match.range(at: 1), in: text) else {
            return nil
        }
        return String(text[range])
    }

    @Test func changelogAndMetainfoNameTheProgramsOwnVersion() throws {
        // dpkg-parsechangelog's Version: the first entry's, in its parentheses.
        #expect(try first(#"^mailto-route \(([^)]+)\)"#, in: text("debian/changelog")) == Versions.mailtoRoute)
        // The newest release first, as AppStream orders them.
        let metainfo = try text("data/io.github.mailto_route.MailtoRoute.metainfo.xml")
        #expect(try first(#"<release version="([^"]+)""#, in: metainfo) == Versions.mailtoRoute)
    }

    /// The package names of `field` (`Depends`, `Build-Depends`) in debian/control, without
    /// versions; substitution variables (`${shlibs:Depends}`) as they are written.
    func controlNames(_ field: String) throws -> Set<String> {
        let control = try text("debian/control")
        let value = try #require(try first(#"\n"# + field + #":((?:[^\n]*\n[ \t][^\n]*)*[^\n]*)"#, in: control))
        let named = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        return Set(named.map { String($0.prefix { !$0.isWhitespace && $0 != "(" }) })
    }

    /// A package build installs nothing (dpkg-checkbuilddeps refuses a missing one first), so
    /// every package that `make` asks install-deps for must be a Build-Depends.
    @Test func buildDependsAreInstallDepsBuildProfileAndDebhelper() throws {
        let profile = try #require(try first(#"\nbuild=\(([^)]*)\)"#, in: text("scripts/install-deps")))
        let wanted = Set(profile.split(whereSeparator: \.isWhitespace).map(String.init))
        let names = try controlNames("Build-Depends")
        #expect(names == wanted.union(["debhelper-compat"]), "install-deps build: \(wanted.sorted()); debian/control: \(names.sorted())")
    }

    /// The dependencies as docs/installing.md says them: each library it names by hand is in
    /// the field it gives (libcurl4 in Depends, libsecret-1-0, opened when present, in
    /// Recommends), and what only mailto-route-books links is recommended, not a dependency
    /// (debian/rules hands that binary to dpkg-shlibdeps -dRecommends). scripts/check-deb
    /// checks the built package by the same rule.
    @Test func dependenciesAreWhatDocsInstallingSays() throws {
        let docs = try text("docs/installing.md")
        let regex = try NSRegularExpression(pattern: #"`(Depends|Recommends): ([a-z0-9.+-]+)`"#)
        let named = regex.matches(in: docs, range: NSRange(docs.startIndex..., in: docs)).compactMap { match in
            Range(match.range(at: 1), in: docs).flatMap { field in Range(match.range(at: 2), in: docs).map { (String(docs[field]), String(docs[$0])) } }
        }
        #expect(Set(named.map(\.0)) == ["Depends", "Recommends"], "\(named)")
        let depends = try controlNames("Depends"), recommends = try controlNames("Recommends")
        for (field, package) in named {
            #expect((field == "Depends" ? depends : recommends).contains(package), "\(package) is not in \(field)")
            #expect(!(field == "Depends" ? recommends : depends).contains(package), "\(package) is in both fields")
        }
        #expect(depends.contains("${shlibs:Depends}") && recommends.contains("${shlibs:Recommends}"))
        #expect(try text("debian/rules").contains("-dRecommends -edebian/mailto-route/usr/bin/mailto-route-books -dDepends"))
    }

    /// Each screenshot URL of the metainfo is docs/screenshots/NAME.png in the tree (where the
    /// tag's tree will serve it), a PNG of the width and height the metainfo gives, small
    /// enough for a software centre to fetch (docs/installing.md).
    @Test func metainfoScreenshotsAreTheTreesImages() throws {
        let metainfo = try text("data/io.github.mailto_route.MailtoRoute.metainfo.xml")
        let regex = try NSRegularExpression(
            pattern: #"<image type="source" width="(\d+)" height="(\d+)">https://[^<]*/(docs/screenshots/[^<]+\.png)</image>"#)
        let matches = regex.matches(in: metainfo, range: NSRange(metainfo.startIndex..., in: metainfo))
        #expect(matches.count >= 1)
        for match in matches {
            let capture = { (i: Int) in Range(match.range(at: i), in: metainfo).map { String(metainfo[$0]) } ?? "" }
            let data = try Data(contentsOf: packageRoot.appendingPathComponent(capture(3)))
            // PNG: the signature, then IHDR's width and height (big-endian) at bytes 16 and 20.
            #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(capture(3)) is not a PNG")
            let dimension = { (offset: Int) in data.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | Int($1) } }
            #expect("\(dimension(16))x\(dimension(20))" == "\(capture(1))x\(capture(2))", "\(capture(3))")
            #expect(data.count < 300_000, "\(capture(3)): \(data.count) bytes")
        }
    }
}
