import MailtoRoute

/// Where each setting came from: the config files read (the system's, then the user's),
/// each key with its value and its file, the keys an administrator locked, and what the
/// user's file says that is not used because of a lock.
struct SettingsSection: CheckSection {
    let settings: CheckReport.Settings

    var title: String { "Settings" }

    var rows: [(label: String, value: String)] {
        var rows: [(String, String)] = []
        for file in settings.systemFiles { rows.append(("system file", file)) }
        rows.append(("user file", settings.userFile.map { $0 } ?? "none (\(settings.userFilePath))"))
        for setting in settings.values {
            var text = "\(setting.shownValue) (\(setting.file)"
            if setting.locked { text += ", locked by the administrator" }
            if let overridden = setting.overriddenIn { text += "; the value in \(overridden) is not used" }
            rows.append(("[\(setting.group)] \(setting.key)", text + ")"))
        }
        for (group, keys) in settings.lockedToDefault {
            for key in keys { rows.append(("[\(group)] \(key)", "built-in default (locked by the administrator)")) }
        }
        for notice in settings.notices { rows.append(("not used", notice)) }
        return rows
    }

    var jsonMembers: [(String, JSON)] {
        [("settings", .object([
            ("systemFiles", .strings(settings.systemFiles)),
            ("userFile", .string(settings.userFile)),
            ("values", .array(settings.values.map { setting in
                .object([
                    ("group", .string(setting.group)), ("key", .string(setting.key)), ("value", .string(setting.shownValue)),
                    ("file", .string(setting.file)), ("locked", .bool(setting.locked)),
                    ("overriddenIn", .string(setting.overriddenIn)),
                ])
            })),
            ("lockedToDefault", .array(settings.lockedToDefault.flatMap { group, keys in
                keys.map { JSON.object([("group", .string(group)), ("key", .string($0))]) }
            })),
            ("notices", .strings(settings.notices)),
        ]))]
    }
}

extension CheckReport {
    /// The config files and every setting with its origin.
    public struct Settings: Sendable {
        /// The system's config files found, the least important first.
        public var systemFiles: [String] = []
        /// The user's config file, when there is one.
        public var userFile: String?
        /// Where the user's config file would be.
        public var userFilePath = ""
        public var values: [Setting] = []
        /// Keys locked in a group where no system file gives a value: the built-in default
        /// stands, by group.
        public var lockedToDefault: [(group: String, keys: [String])] = []
        /// What is not used of the user's file, and why.
        public var notices: [String] = []
    }

    var settingsSection: SettingsSection { SettingsSection(settings: settings) }
}

extension Check {
    static func gatherSettings(into report: inout CheckReport, session: Session) {
        let configuration = session.configuration
        report.settings.systemFiles = configuration.systemFiles.map(\.path)
        report.settings.userFile = configuration.configFile?.path
        report.settings.userFilePath = session.paths.configFile
        report.settings.values = configuration.settings
        report.settings.lockedToDefault = configuration.lockedKeys.sorted { $0.key < $1.key }.compactMap { group, keys in
            let unset = keys.filter { key in key != "*" && !configuration.settings.contains { $0.group == group && $0.key == key } }.sorted()
            return unset.isEmpty ? nil : (group, unset)
        }
        report.settings.notices = configuration.notices
        // A value of the user's that is not used is worth saying beside the verdict too.
        report.warnings += configuration.notices
    }
}
