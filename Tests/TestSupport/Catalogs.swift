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

/// The environment `environment` with messages in `locale` (`de_DE.UTF-8`): LANG set and
/// every variable that would win over it (LC_ALL, LC_MESSAGES, LANGUAGE) removed.
public func inLocale(_ locale: String, _ environment: [String: String]) -> [String: String] {
    var environment = environment
    for variable in ["LANGUAGE", "LC_ALL", "LC_MESSAGES"] { environment[variable] = nil }
    environment["LANG"] = locale
    return environment
}
