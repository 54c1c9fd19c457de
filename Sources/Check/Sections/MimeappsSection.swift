import MailtoRoute

extension CheckReport {
    public struct Mimeapps: Sendable {
        public var lists: [MimeappsList]
        /// The list whose default wins (names an installed program first).
        public var winner: String?
        public var overrides: [MimeappsOverride]
        public var stale: [StaleEntry]
    }
}

extension CheckReport.Mimeapps: CheckSection {
    public var title: String { "mimeapps.list files, in the order GIO reads them" }

    public var rows: [(label: String, value: String)] {
        var rows: [(String, String)] = lists.map { list in
            var value = list.defaults.isEmpty ? "no mailto: default" : list.defaults.joined(separator: ";")
            if let desktop = list.desktop { value += " (\(desktop) only)" }
            if list.path == winner { value += " <- wins" }
            return (list.path, value)
        }
        if rows.isEmpty { rows.append(("none", "no mimeapps.list names a mailto: handler")) }
        return rows + stale.map { ("stale", "\($0.id): \($0.program) does not exist (\($0.file))") }
    }

    public var jsonMembers: [(String, JSON)] {
        let lists: [JSON] = lists.map { list in
            .object([("path", .string(list.path)), ("desktop", .string(list.desktop)),
                     ("defaults", .strings(list.defaults)), ("wins", .bool(list.path == winner))])
        }
        let overrides: [JSON] = overrides.map { .object([("path", .string($0.path)), ("handlers", .strings($0.handlers))]) }
        let stale: [JSON] = stale.map { .object([("id", .string($0.id)), ("file", .string($0.file)), ("program", .string($0.program))]) }
        return [("mimeapps", .object([("lists", .array(lists)), ("winner", .string(winner)),
                                      ("overrides", .array(overrides)), ("stale", .array(stale))]))]
    }
}
