internal import CGIO
#if canImport(Glibc)
import Glibc
#endif

/// How an application is packaged: it decides how a command line reaches it.
public enum Packaging: Equatable, Sendable {
    case native
    /// Run through `flatpak run APP-ID`; the id is the desktop file's `X-Flatpak` key.
    case flatpak(appID: String)
    /// Run through `/snap/bin/NAME`.
    case snap(name: String)
}

/// One installed application as GIO sees it. The only Swift owner of one reference to a
/// `GAppInfo *`, dropped with `g_object_unref` in `deinit`. `@unchecked Sendable`: a
/// GAppInfo is immutable once GIO has read its desktop file, GObject reference counts are
/// atomic, and this class only reads it.
public final class AppInfo: @unchecked Sendable {
    /// `GAppInfo *` (an interface type, so opaque to Swift).
    let pointer: OpaquePointer
    /// GIO, loaded: an `AppInfo` exists only once it is.
    let gio: UnsafePointer<mr_gio_api>

    /// Takes over a reference the caller owned (transfer full).
    init(adopting pointer: OpaquePointer, gio: UnsafePointer<mr_gio_api>) {
        self.pointer = pointer
        self.gio = gio
    }

    /// Takes a reference of its own to a pointer that is only lent (transfer none).
    init(retaining pointer: OpaquePointer, gio: UnsafePointer<mr_gio_api>) {
        _ = gio.pointee.g_object_ref(UnsafeMutableRawPointer(pointer))
        self.pointer = pointer
        self.gio = gio
    }

    deinit {
        gio.pointee.g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// Wraps `g_desktop_app_info_new` (transfer full): the application whose desktop id is
    /// `id` (`thunderbird.desktop`), or `nil` when none is installed, hidden, or its
    /// executable is missing (or GIO cannot be loaded: `Handlers.checkGIO()` says why).
    public static func named(_ id: String) -> AppInfo? {
        guard let gio = try? GIOLibrary.load(), let desktop = gio.pointee.g_desktop_app_info_new(id) else { return nil }
        return AppInfo(adopting: mr_desktop_as_app_info(desktop), gio: gio)
    }

    /// Wraps `g_app_info_get_id` (transfer none): the desktop id, such as `thunderbird.desktop`.
    public var id: String? { borrowString(gio.pointee.g_app_info_get_id(pointer)) }

    /// Wraps `g_app_info_get_name` (transfer none).
    public var name: String { borrowString(gio.pointee.g_app_info_get_name(pointer)) ?? id ?? "?" }

    /// Wraps `g_app_info_get_executable` (transfer none): the first word of `Exec=`.
    public var executable: String { borrowString(gio.pointee.g_app_info_get_executable(pointer)) ?? "" }

    /// Wraps `g_app_info_get_commandline` (transfer none): `Exec=` as GIO read it.
    public var commandLine: String? { borrowString(gio.pointee.g_app_info_get_commandline(pointer)) }

    /// The `GDesktopAppInfo *` behind this info, when it comes from a desktop file
    /// (transfer none: valid while `self` lives).
    var desktop: OpaquePointer? {
        mr_as_desktop_app_info(gio, pointer)
    }

    /// Wraps `g_desktop_app_info_get_filename` (transfer none).
    public var fileName: String? {
        guard let desktop else { return nil }
        return borrowString(gio.pointee.g_desktop_app_info_get_filename(desktop))
    }

    /// Wraps `g_desktop_app_info_get_string` (transfer full): a key of the `[Desktop Entry]`
    /// group, such as `X-Flatpak`.
    public func desktopEntryString(_ key: String) -> String? {
        guard let desktop else { return nil }
        return takeString(gio.pointee.g_desktop_app_info_get_string(desktop, key))
    }

    /// Wraps `g_desktop_app_info_get_boolean(…, "Terminal")`: whether the program must run
    /// in a terminal (mutt, neomutt).
    public var needsTerminal: Bool {
        guard let desktop else { return false }
        return gio.pointee.g_desktop_app_info_get_boolean(desktop, "Terminal") != 0
    }

    /// Wraps `g_desktop_app_info_get_boolean(…, "StartupNotify")`: whether the program says
    /// it ends the startup sequence of its launch (its first window does).
    public var takesStartupNotification: Bool {
        guard let desktop else { return false }
        return gio.pointee.g_desktop_app_info_get_boolean(desktop, "StartupNotify") != 0
    }

    /// Whether GIO launches this program over the session bus (when there is one) rather
    /// than running its `Exec=`: `DBusActivatable=true`, and the desktop file named after a
    /// well-known bus name (`org.gnome.Evolution.desktop`), as GIO's own test is (wraps
    /// `g_desktop_app_info_get_boolean` and `g_dbus_is_name`).
    public var isDBusActivatable: Bool {
        guard let desktop, gio.pointee.g_desktop_app_info_get_boolean(desktop, "DBusActivatable") != 0,
              let file = fileName?.split(separator: "/").last, file.hasSuffix(".desktop")
        else { return false }
        let name = String(file.dropLast(".desktop".count))
        return !name.hasPrefix(":") && gio.pointee.g_dbus_is_name(name) != 0
    }

    /// `Exec=` as words, with the program it really runs (see `ExecLine`); `nil` when it
    /// does not split.
    public var execLine: ExecLine? {
        commandLine.flatMap(ExecLine.init)
    }

    /// Flatpak apps carry their id in `X-Flatpak`; Snap apps are run from `/snap/bin` and
    /// their desktop files live in snapd's directory.
    public var packaging: Packaging {
        if let appID = desktopEntryString("X-Flatpak"), !appID.isEmpty {
            return .flatpak(appID: appID)
        }
        if let name = desktopEntryString("X-SnapInstanceName"), !name.isEmpty {
            return .snap(name: name)
        }
        let command = commandLine ?? executable
        if let range = command.firstRange(of: "/snap/bin/") {
            let rest = command[range.upperBound...]
            return .snap(name: String(rest.prefix { $0 != " " }))
        }
        if fileName?.hasPrefix("/var/lib/snapd/") == true {
            return .snap(name: id.map { String($0.dropLast(".desktop".count)) } ?? executable)
        }
        return .native
    }

    /// Whether launching this application would start mailto-route again: its desktop id,
    /// or its executable resolving to the running binary (docs/design.md rule 5: no loop).
    public var isMailtoRoute: Bool {
        if id == Registration.desktopID { return true }
        let program = executable
        if program.split(separator: "/").last == "mailto-route" { return true }
        guard let found = takeString(g_find_program_in_path(program)) else { return false }
        return Self.resolved(found) == Self.resolved("/proc/self/exe")
    }

    /// `realpath(3)`, or the path itself when it cannot be resolved.
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}
