import Foundation

/// The translations compiled where a build run from the tree finds them (`.build/locale`,
/// MailtoCore's Localization), once per test process: `scripts/compile-po`, as `make` and
/// `make test` run it. Each catalog is written beside its place and renamed into it, so
/// that test processes compiling at the same time never read half a file.
public func compileCatalogs() throws {
    try compiledCatalogs.get()
}

private let compiledCatalogs: Result<Void, any Error> = Result {
    let result = try run(packageRoot.appendingPathComponent("scripts/compile-po").path, [])
    guard result.status == 0 else { throw CatalogError(message: "scripts/compile-po: \(result)") }
}

struct CatalogError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The environment `environment` wholly in `locale` (`de_DE.UTF-8`): LANG set and every
/// variable that would win over it (LANGUAGE and each LC_*, LC_TIME as much as LC_ALL)
/// removed, so that a program that takes the whole locale (GTK's `setlocale(LC_ALL, "")`)
/// gets this one in every category.
public func inLocale(_ locale: String, _ environment: [String: String]) -> [String: String] {
    var environment = environment
    for variable in environment.keys where variable == "LANGUAGE" || variable.hasPrefix("LC_") { environment[variable] = nil }
    environment["LANG"] = locale
    return environment
}

/// The locales that the wire is tested in (docs/design.md rule 10: the wire never follows
/// the locale): German (its own day and month names), Turkish (its dotless i in case
/// mappings) and Persian (its own digits, its decimal separator, a right-to-left desktop).
/// `scripts/install-deps test` makes them.
public let wireLocales = ["de_DE.UTF-8", "tr_TR.UTF-8", "fa_IR.UTF-8"]

/// Throws unless `name` is made on this machine: glibc falls back to the C locale without a
/// word, and a test of the wire "in German" would then pass in English.
public func requireLocale(_ name: String) throws {
    guard let locale = newlocale(LC_CTYPE_MASK | LC_NUMERIC_MASK | LC_TIME_MASK | LC_MESSAGES_MASK, name, nil) else {
        throw TestSupportError("the locale \(name) is not made on this machine (scripts/install-deps test)")
    }
    freelocale(locale)
}
