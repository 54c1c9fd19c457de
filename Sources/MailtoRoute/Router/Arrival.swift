#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration

/// How a request reached mailto-route, and which program asked where that can be known:
/// said in the report (`--json`), the outcome log and the sheet (docs/security.md, "The
/// ways a link comes"). It decides nothing: what a link may attach is `AttachmentTrust`'s.
public struct Arrival: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A GIO launch of the link handler's desktop file (`open %u`): Firefox, `gio
        /// open`, `xdg-open` on most desktops, and GIO's `Open` of the D-Bus activatable one.
        case gioLaunch = "gio launch"
        /// xdg-desktop-portal's OpenURI, which launches the desktop file through GIO on an
        /// application's behalf: Chromium with a portal on the session bus, and every Flatpak.
        case portalOpenURI = "portal OpenURI"
        /// xdg-email's hook (`open --xdg-email`): Chromium and Electron applications with no
        /// portal on the bus, LibreOffice's senddoc, a file manager's "Send to".
        case xdgEmail = "xdg-email"
        /// The Email portal's `ComposeEmail`, served by the desktop service.
        case emailPortal = "Email portal"
        /// None of those: a terminal, a script.
        case commandLine = "command line"
    }

    public var kind: Kind
    /// The program that asked, as a person knows it ("Firefox"); `nil`: not known.
    public var requester: String?
    /// The window of the application that asked, as the portal's OpenURI launch names it
    /// (`PARENT_WINDOW_ID`: `x11:XID` or `wayland:HANDLE`), which the window the request
    /// opens is kept above; `nil`: none named (Chromium names none), or another way.
    public var parentWindow: String?

    public init(kind: Kind, requester: String? = nil, parentWindow: String? = nil) {
        self.kind = kind
        self.requester = requester
        self.parentWindow = parentWindow
    }

    /// How this process's `open` was started: `ofOpen(environment:…)` on its own
    /// environment and process group.
    public static func ofOpen(viaXDGEmail: Bool) -> Arrival {
        ofOpen(environment: { getenv($0).map { String(cString: $0) } }, ownPID: getpid(), ownUID: ProcessFacts.ownUID,
               viaXDGEmail: viaXDGEmail, processGroupLeader: { ProcessFacts.read(pid: getpgrp()) })
    }

    /// How `open` was started, from the environment it was started with (tested on values
    /// built from text). GIO's launch of a desktop file sets `GIO_LAUNCHED_DESKTOP_FILE_PID`
    /// to the pid it started (inherited further down, so only this process's own pid
    /// counts); xdg-desktop-portal's launch adds `PARENT_WINDOW_ID` (empty when the caller
    /// named no window, as Chromium does), which no other launcher sets. After either, this
    /// process's parent is init: GLib's launch forks twice. Who asked is known only from a GIO launch: the leader of the
    /// process group it left this process in, when that is a program people know by name
    /// (a browser started from a terminal or by its launcher leads its own group); the
    /// portal's launch is the portal's, whoever called it.
    public static func ofOpen(
        environment value: (String) -> String?, ownPID: Int32, ownUID: UInt32, viaXDGEmail: Bool,
        processGroupLeader: () -> ProcessFacts?
    ) -> Arrival {
        if viaXDGEmail { return Arrival(kind: .xdgEmail) }
        guard value("GIO_LAUNCHED_DESKTOP_FILE_PID") == String(ownPID) else { return Arrival(kind: .commandLine) }
        if let parent = value("PARENT_WINDOW_ID") {
            return Arrival(kind: .portalOpenURI, parentWindow: parent.isEmpty ? nil : parent)
        }
        let leader = processGroupLeader().flatMap { $0.uid == ownUID && $0.pid != ownPID ? $0 : nil }
        return Arrival(kind: .gioLaunch, requester: leader.flatMap(XDGEmailCaller.knownProgram))
    }
}
