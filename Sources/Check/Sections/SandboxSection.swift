#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute

extension CheckReport {
    public struct Sandbox: Sendable {
        /// The Flatpak application id, when inside Flatpak (`/.flatpak-info`).
        public var flatpak: String?
        /// The Snap name, when inside a Snap (`SNAP`).
        public var snap: String?
        /// `org.freedesktop.portal.Email`'s version; `nil` with `portalProblem` nil: absent.
        public var portalVersion: UInt32?
        /// Why the portal's presence is unknown (no session bus, no answer).
        public var portalUnknown: String?
    }
}

extension CheckReport.Sandbox: CheckSection {
    public var title: String { "Sandbox" }

    public var rows: [(label: String, value: String)] {
        [("Flatpak", flatpak.map { "yes (\($0))" } ?? "no"), ("Snap", snap.map { "yes (\($0))" } ?? "no"),
         ("email portal", portalText)]
    }

    private var portalText: String {
        if let portalVersion { return "present, version \(portalVersion)" }
        if let portalUnknown { return "unknown (\(portalUnknown))" }
        return "absent"
    }

    public var jsonMembers: [(String, JSON)] {
        let portal = portalVersion != nil ? "present" : portalUnknown != nil ? "unknown" : "absent"
        return [("sandbox", .object([("flatpak", .string(flatpak)), ("snap", .string(snap)), ("emailPortal", .string(portal)),
                                     ("emailPortalVersion", nullable(portalVersion) { .int(Int($0)) })]))]
    }
}

extension Check {
    static func sandboxFacts() -> CheckReport.Sandbox {
        var facts = CheckReport.Sandbox()
        if access("/.flatpak-info", F_OK) == 0 {
            let name = (try? KeyFile.load("/.flatpak-info"))??.string("Application", "name")
            facts.flatpak = name ?? "unknown application"
        }
        if let snap = getenv("SNAP").map({ String(cString: $0) }) {
            facts.snap = getenv("SNAP_NAME").map { String(cString: $0) } ?? snap
        }
        return facts
    }
}
