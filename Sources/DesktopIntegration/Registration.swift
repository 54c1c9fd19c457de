internal import CGIO
import MailtoCore

/// What `register` did.
public struct RegistrationReport: Sendable {
    /// The desktop file installed.
    public var desktopFile: String
    /// The default before mailto-route, as remembered in the state file (`nil`: none).
    public var previousDefault: String?
    /// mailto-route was the default already: nothing but the desktop file was rewritten.
    public var wasRegistered: Bool
    /// What GIO names as the default now; not mailto-route when an override wins.
    public var effectiveDefault: String?
    /// Desktop-specific lists that make the registration ineffective.
    public var overrides: [MimeappsOverride]
    /// Desktop-specific lists that named another program and now name mailto-route first
    /// (`register --force`); `unregister` gives them back.
    public var takenOver: [String] = []
    /// The desktop service's files installed: its D-Bus activatable desktop entry and the
    /// D-Bus service files of the application and of the Email portal backend. Empty when
    /// mailto-route-desktop is not beside the binary (no sheet, no service).
    public var serviceFiles: [String] = []
}

/// What `unregister` did.
public struct UnregistrationReport: Sendable {
    /// The default restored (`nil`: none).
    public var restoredDefault: String?
    /// mailto-route was not registered: nothing was changed.
    public var wasRegistered: Bool
}

/// Installing mailto-route as the `mailto:` handler and taking it back out, leaving the
/// user's `mimeapps.list` as it was found. Its files are under the run's base directories
/// (`Paths.directories`), by the rule of everything else mailto-route keeps.
public struct Registration: Sendable {
    public static let desktopID = "mailto-route.desktop"

    public let directories: BaseDirectories

    public init(_ directories: BaseDirectories) {
        self.directories = directories
    }

    /// `$XDG_DATA_HOME/applications/mailto-route.desktop`.
    public var desktopFilePath: String { directories.dataHome + "/applications/" + Self.desktopID }
    /// `$XDG_STATE_HOME/mailto-route`, where the outbox is too.
    var stateDirectory: String { directories.stateHome + "/mailto-route" }
    /// `$XDG_STATE_HOME/mailto-route/state` (GLib key-file syntax).
    public var statePath: String { stateDirectory + "/state" }
    /// `mimeapps.list` as it was before the first `register`, and as GIO left it after.
    var beforeSnapshotPath: String { stateDirectory + "/mimeapps.list.before" }
    var afterSnapshotPath: String { stateDirectory + "/mimeapps.list.after" }

    static let stateGroup = "register"
    static let previousKey = "previous-default"
    static let listExistedKey = "mimeapps-list-existed"
    /// The file names of the desktop-specific lists `register --force` changed, each kept
    /// as it was (`NAME.before`) and as it was left (`NAME.after`) in the state directory.
    static let takenOverKey = "taken-over-lists"

    /// `data/mailto-route.desktop` (embedded at build time): `@EXEC@` becomes the binary's
    /// absolute path.
    static let template = Embedded.handlerEntry

    /// The desktop service (mailto-route-desktop `--gapplication-service`), from `data/`
    /// (embedded at build time): its desktop entry, whose name is the application id, as
    /// GLib requires to launch it over D-Bus (`DBusActivatable=true`); the session bus's
    /// service files that start it for its own name and for the Email portal backend's; and
    /// the XDG autostart entry (GNOME, KDE, Xfce, and systemd's xdg-autostart generator),
    /// so that a message queued before the last logout is retried with no command: the
    /// service owns the outbox from its start while anything is queued, and quits after its
    /// idle time when nothing is. `@DESKTOP@` becomes mailto-route-desktop's absolute path.
    /// `mailto-route.desktop` stays the `mailto:` handler: a click that hands off must not
    /// wait for GTK to start; the command line asks the service for a sheet.
    static let serviceTemplates: [(directory: String, name: String, text: String)] = [
        ("applications", "io.github.mailto_route.MailtoRoute.desktop", Embedded.serviceEntry),
        ("dbus-1/services", "io.github.mailto_route.MailtoRoute.service", Embedded.serviceBusFile),
        ("dbus-1/services", "org.freedesktop.impl.portal.desktop.mailtoroute.service", Embedded.portalBusFile),
        ("autostart", "io.github.mailto_route.MailtoRoute.Outbox.desktop", Embedded.outboxAutostartEntry),
    ]

    /// Where `register` puts each service file: the autostart entry under
    /// `$XDG_CONFIG_HOME`, the rest under `$XDG_DATA_HOME`.
    public var autostartPath: String {
        serviceFilePaths[Self.serviceTemplates.firstIndex { $0.directory == "autostart" } ?? 0]
    }

    var serviceFilePaths: [String] {
        Self.serviceTemplates.map {
            ($0.directory == "autostart" ? directories.configHome : directories.dataHome) + "/\($0.directory)/\($0.name)"
        }
    }

    /// Installs the service's files for mailto-route-desktop beside this binary, or
    /// removes them when it is not there.
    func installServiceFiles() throws(DesktopError) -> [String] {
        guard let desktop = SheetService.sheetProgram else {
            for path in serviceFilePaths { try Files.remove(path) }
            return []
        }
        for (template, path) in zip(Self.serviceTemplates, serviceFilePaths) {
            let text = Array(template.text.replacing("@DESKTOP@", with: DesktopEntryQuoting.execArgument(desktop)).utf8)
            try XDGDirectories.makeDirectory(Files.directory(of: path))
            if try Files.read(path) != text { try Files.write(text, to: path) }
        }
        return serviceFilePaths
    }

    /// The desktop entry for the binary at `executable` (absolute: GIO ignores an entry
    /// whose program it cannot find, and `PATH` differs between sessions).
    public static func desktopEntry(executable: String) -> String {
        template.replacing("@EXEC@", with: DesktopEntryQuoting.execArgument(executable))
    }

    /// The default remembered by `register`, `nil` when there was none or no
    /// registration; read from the state file.
    public var previousDefault: String? {
        guard let state = try? KeyFile.load(statePath), let id = state.string(Self.stateGroup, Self.previousKey),
              !id.isEmpty else { return nil }
        return id
    }

    /// Installs the desktop file, remembers the current default and makes mailto-route
    /// the default with `g_app_info_set_as_default_for_type`. Running it again changes
    /// nothing but the `Exec=` path. With `force`, a desktop-specific list of the user's
    /// that names another program (and so wins over `mimeapps.list` on that desktop) is
    /// made to name mailto-route first, the others after it.
    public func register(force: Bool = false) throws(DesktopError) -> RegistrationReport {
        // Before anything is written: without GIO the current default would read as none.
        try Handlers.checkGIO()
        try Self.checkGIOAgrees()
        let executable = AppInfo.resolved("/proc/self/exe")
        let entry = Array(Self.desktopEntry(executable: executable).utf8)
        // The desktop file goes first: GIO reads the application directories once per
        // process, at the first lookup, and must find it there.
        try XDGDirectories.makeDirectory(Files.directory(of: desktopFilePath))
        if try Files.read(desktopFilePath) != entry {
            try Files.write(entry, to: desktopFilePath)
        }
        try XDGDirectories.makeDirectory(stateDirectory)
        let state = try KeyFile.load(statePath) ?? KeyFile()
        let current = Handlers.defaultForType(Handlers.mailtoType)
        let currentIsUs = current?.isMailtoRoute == true
        if !state.has(Self.stateGroup, Self.previousKey) {
            let listBefore = try Files.read(Mimeapps.userListPath)
            if let listBefore { try Files.write(listBefore, to: beforeSnapshotPath) }
            state.set(listBefore == nil ? "false" : "true", Self.stateGroup, Self.listExistedKey)
            state.set(currentIsUs ? "" : current?.id ?? "", Self.stateGroup, Self.previousKey)
            try state.save(to: statePath)
        }
        if !currentIsUs || current?.id != Self.desktopID {
            guard let ours = AppInfo.named(Self.desktopID) else {
                throw DesktopError(.configuration, tr("GIO does not see %@; is %@ executable?", desktopFilePath, executable))
            }
            var error: UnsafeMutablePointer<GError>?
            if ours.gio.pointee.g_app_info_set_as_default_for_type(ours.pointer, Handlers.mailtoType, &error) == 0 {
                throw takeError(error, .configuration, tr("cannot set the default mailto: handler"))
            }
            if let listAfter = try Files.read(Mimeapps.userListPath) {
                try Files.write(listAfter, to: afterSnapshotPath)
            }
        }
        let serviceFiles = try installServiceFiles()
        let wasRegistered = currentIsUs && current?.id == Self.desktopID
        let takenOver = force ? try takeOver(Mimeapps.overrides(for: Handlers.mailtoType, expected: Self.desktopID), state: state) : []
        return RegistrationReport(
            desktopFile: desktopFilePath,
            previousDefault: previousDefault,
            wasRegistered: wasRegistered && takenOver.isEmpty,
            effectiveDefault: Handlers.defaultForType(Handlers.mailtoType)?.id,
            overrides: Mimeapps.overrides(for: Handlers.mailtoType, expected: Self.desktopID),
            takenOver: takenOver,
            serviceFiles: serviceFiles
        )
    }

    /// Refuses a relative `XDG_DATA_HOME` or `XDG_CONFIG_HOME`: mailto-route ignores it, as
    /// the XDG spec says (`BaseDirectories`), but GIO takes it, relative to the current
    /// directory, so GIO would not find the desktop file where it is installed, and would
    /// write `mimeapps.list` where no click reads it.
    static func checkGIOAgrees() throws(DesktopError) {
        for (variable, value) in [("XDG_DATA_HOME", XDGDirectories.dataHome), ("XDG_CONFIG_HOME", XDGDirectories.configHome)]
        where !value.hasPrefix("/") {
            throw DesktopError(.configuration, tr("%@=%@ is not a full path: the XDG Base Directory spec says to ignore it, as "
                + "mailto-route does, but GIO takes it relative to the current directory; set it to a full path or unset it",
                                                  variable, value))
        }
    }

    /// Puts mailto-route first in each of `overrides`, keeping each list as it was found
    /// (recorded in the state file before the list is touched) and as it was left. A list
    /// changed since an earlier `--force` is kept anew as it is now: the user's changes
    /// are what `unregister` gives back. A list that is a symbolic link (dotfiles kept
    /// elsewhere) is written through the link.
    func takeOver(_ overrides: [MimeappsOverride], state: KeyFile) throws(DesktopError) -> [String] {
        var taken: [String] = []
        for found in overrides {
            let path = AppInfo.resolved(found.path)
            guard let before = try Files.read(path) else { continue }
            let name = Files.name(of: found.path)
            var recorded = state.stringList(Self.stateGroup, Self.takenOverKey)
            let lastLeft = try Files.read(snapshotPath(name, "after"))
            if !recorded.contains(name) || lastLeft != before {
                try Files.write(before, to: snapshotPath(name, "before"))
            }
            if !recorded.contains(name) {
                recorded.append(name)
                state.set(recorded.joined(separator: ";"), Self.stateGroup, Self.takenOverKey)
                try state.save(to: statePath)
            }
            let text = String(decoding: before, as: UTF8.self)
            let edited = Array(MimeappsEdit.preferring(Self.desktopID, for: Handlers.mailtoType, in: text).utf8)
            try Files.write(edited, to: path)
            try Files.write(edited, to: snapshotPath(name, "after"))
            taken.append(found.path)
        }
        return taken
    }

    func snapshotPath(_ name: String, _ when: String) -> String {
        stateDirectory + "/\(name).\(when)"
    }

    /// Gives back each desktop-specific list `register --force` changed: byte for byte
    /// when nothing else changed it since, else only its `x-scheme-handler/mailto` line.
    func giveBackTakenOver(_ state: KeyFile?) throws(DesktopError) -> Bool {
        var changed = false
        for name in state?.stringList(Self.stateGroup, Self.takenOverKey) ?? [] {
            // Where `Mimeapps.overrides` found it: GIO's configuration directory.
            let path = AppInfo.resolved(Mimeapps.userList(named: name))
            if let current = try Files.read(path) {
                if try Files.read(snapshotPath(name, "after")) == current, let before = try Files.read(snapshotPath(name, "before")) {
                    try Files.write(before, to: path)
                } else {
                    let text = String(decoding: current, as: UTF8.self)
                    try Files.write(Array(MimeappsEdit.removing(Self.desktopID, from: Handlers.mailtoType, restoring: nil, in: text).utf8), to: path)
                }
                changed = true
            }
            try Files.remove(snapshotPath(name, "before"))
            try Files.remove(snapshotPath(name, "after"))
        }
        return changed
    }

    /// Removes the desktop file and gives the default back: when nothing else touched
    /// `mimeapps.list` since `register`, the file is restored byte for byte; otherwise only
    /// the `x-scheme-handler/mailto` lines that name mailto-route are changed.
    public func unregister() throws(DesktopError) -> UnregistrationReport {
        let state = try KeyFile.load(statePath)
        let previous = previousDefault
        let hadDesktopFile = try Files.read(desktopFilePath) != nil
        try Files.remove(desktopFilePath)
        for path in serviceFilePaths { try Files.remove(path) }
        let current = try Files.read(Mimeapps.userListPath)
        var changedList = false
        if let state, let current, try Files.read(afterSnapshotPath) == current {
            if state.string(Self.stateGroup, Self.listExistedKey) == "false" {
                try Files.remove(Mimeapps.userListPath)
            } else if let before = try Files.read(beforeSnapshotPath) {
                try Files.write(before, to: Mimeapps.userListPath)
            }
            changedList = true
        } else if let current {
            let text = String(decoding: current, as: UTF8.self)
            let edited = MimeappsEdit.removing(Self.desktopID, from: Handlers.mailtoType, restoring: previous, in: text)
            if edited != text {
                try Files.write(Array(edited.utf8), to: Mimeapps.userListPath)
                changedList = true
            }
        }
        let gaveBack = try giveBackTakenOver(state)
        for path in [beforeSnapshotPath, afterSnapshotPath, statePath] {
            try Files.remove(path)
        }
        return UnregistrationReport(
            restoredDefault: previous,
            wasRegistered: state != nil || hadDesktopFile || changedList || gaveBack
        )
    }
}

/// Quoting for the `Exec=` key (Desktop Entry Specification, "The Exec key").
enum DesktopEntryQuoting {
    /// One argument: double-quoted when it holds a reserved character, with `"`, `` ` ``,
    /// `$` and `\` escaped inside the quotes; `%` doubled (field codes); then `\` doubled
    /// again, because the key's value is itself an escaped string.
    static func execArgument(_ argument: String) -> String {
        let reserved: Set<Character> = [" ", "\t", "\n", "\"", "'", "\\", ">", "<", "~", "|", "&", ";", "$", "*", "?", "#", "(", ")", "`"]
        var text = ""
        if argument.contains(where: { reserved.contains($0) }) {
            text = "\""
            for character in argument {
                if "\"`$\\".contains(character) { text.append("\\") }
                text.append(character)
            }
            text.append("\"")
        } else {
            text = argument
        }
        return text.replacing("%", with: "%%").replacing("\\", with: "\\\\")
    }
}

/// The one line-level change `unregister` makes to a `mimeapps.list` that someone else
/// also changed after `register`: every other line stays byte for byte.
enum MimeappsEdit {
    /// `text` with `id` first in the `[Default Applications]` entry for `type`, the
    /// programs it named after it; every other line as it was.
    static func preferring(_ id: String, for type: String, in text: String) -> String {
        var group = ""
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingSpaces()
            if trimmed.hasPrefix("[") { group = trimmed }
            guard group == "[\(Mimeapps.defaultsGroup)]", let equals = line.firstIndex(of: "="),
                  String(line[..<equals]).trimmingSpaces() == type else {
                lines.append(line)
                continue
            }
            let others = line[line.index(after: equals)...].split(separator: ";").map { String($0).trimmingSpaces() }
                .filter { $0 != id && !$0.isEmpty }
            lines.append("\(type)=\(([id] + others).joined(separator: ";"))")
        }
        return lines.joined(separator: "\n")
    }

    static func removing(_ id: String, from type: String, restoring previous: String?, in text: String) -> String {
        var group = ""
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingSpaces()
            if trimmed.hasPrefix("[") {
                group = trimmed
                lines.append(line)
                continue
            }
            guard group == "[\(Mimeapps.defaultsGroup)]" || group == "[\(Mimeapps.addedGroup)]",
                  let equals = line.firstIndex(of: "="),
                  String(line[..<equals]).trimmingSpaces() == type else {
                lines.append(line)
                continue
            }
            let entries = line[line.index(after: equals)...].split(separator: ";").map { String($0).trimmingSpaces() }
            guard entries.contains(id) else {
                lines.append(line)
                continue
            }
            var kept = entries.filter { $0 != id && !$0.isEmpty }
            if group == "[\(Mimeapps.defaultsGroup)]", kept.isEmpty, let previous {
                kept = [previous]
            }
            if !kept.isEmpty {
                let trailing = group == "[\(Mimeapps.addedGroup)]" ? ";" : ""
                lines.append("\(type)=\(kept.joined(separator: ";"))\(trailing)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
