import DesktopIntegration
import MailtoRoute
import Testing

/// How `open` was started (Arrival.ofOpen), on environments and process groups as the real
/// launchers leave them: GIO's launch of the desktop file (Firefox), xdg-desktop-portal's
/// OpenURI (Chromium with a portal on the bus), xdg-email's hook, a terminal.
@Suite struct ArrivalTests {
    static let user: UInt32 = 1000
    static let pid: Int32 = 4464

    static let firefox = ProcessFacts(
        pid: 4844, parent: 900, uid: user, startTime: 100, executable: "/usr/lib/firefox-esr/firefox-esr",
        arguments: ["/usr/lib/firefox-esr/firefox-esr"])
    static let shell = ProcessFacts(pid: 4000, parent: 900, uid: user, startTime: 90, executable: "/usr/bin/bash", arguments: ["bash"])

    func arrival(_ environment: [String: String], xdgEmail: Bool = false, leader: ProcessFacts? = firefox) -> Arrival {
        Arrival.ofOpen(environment: { environment[$0] }, ownPID: Self.pid, ownUID: Self.user, viaXDGEmail: xdgEmail,
                       processGroupLeader: { leader })
    }

    static let gio = ["GIO_LAUNCHED_DESKTOP_FILE": "/usr/share/applications/mailto-route.desktop",
                      "GIO_LAUNCHED_DESKTOP_FILE_PID": "4464"]

    /// Firefox's click: GIO launched this very process, in Firefox's process group.
    @Test func aGIOLaunchIsNamedAfterTheProgramLeadingItsGroup() {
        #expect(arrival(Self.gio) == Arrival(kind: .gioLaunch, requester: "Firefox"))
        #expect(arrival(Self.gio, leader: Self.shell) == Arrival(kind: .gioLaunch))
        var otherUsers = Self.firefox
        otherUsers.uid = 0
        #expect(arrival(Self.gio, leader: otherUsers) == Arrival(kind: .gioLaunch))
    }

    /// The portal's launch context adds PARENT_WINDOW_ID, empty when the caller named no
    /// window (Chromium): whoever called the portal is not known here.
    @Test func thePortalsLaunchIsOpenURI() {
        var environment = Self.gio
        environment["PARENT_WINDOW_ID"] = ""
        #expect(arrival(environment) == Arrival(kind: .portalOpenURI))
    }

    /// An application that names its window to the portal has it in PARENT_WINDOW_ID, which
    /// the window the link opens is kept above.
    @Test func thePortalsLaunchCarriesTheApplicationsWindow() {
        var environment = Self.gio
        environment["PARENT_WINDOW_ID"] = "x11:1e00007"
        #expect(arrival(environment) == Arrival(kind: .portalOpenURI, parentWindow: "x11:1e00007"))
    }

    /// A GIO launch of another process, whose environment this one inherited (a mail
    /// program started by a handoff runs mailto-route again), is not this one's.
    @Test func anInheritedLaunchIsTheCommandLine() {
        var environment = Self.gio
        environment["GIO_LAUNCHED_DESKTOP_FILE_PID"] = "4000"
        #expect(arrival(environment) == Arrival(kind: .commandLine))
        #expect(arrival([:]) == Arrival(kind: .commandLine))
    }

    @Test func theHookIsXDGEmail() {
        #expect(arrival(Self.gio, xdgEmail: true).kind == .xdgEmail)
    }

    /// The report and the log line say it; the log reads it back.
    @Test func theReportSaysHowItArrived() throws {
        var report = RouteReport(path: .handoff, result: .handedOff)
        report.arrival = Arrival(kind: .portalOpenURI)
        let text = report.json.serialized
        #expect(text.contains("\"arrival\": \"portal OpenURI\""), "\(text)")
        #expect(RouteReport(json: text)?.arrival == Arrival(kind: .portalOpenURI))
        report.arrival = Arrival(kind: .gioLaunch, requester: "Firefox")
        #expect(RouteReport(json: report.json.serialized)?.arrival == report.arrival)
    }
}
