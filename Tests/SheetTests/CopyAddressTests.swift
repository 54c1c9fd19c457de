import Foundation
import Testing
import TestSupport

/// Copy Address as the desktop has it: `mailto-route copy` and the chooser's way put a link's
/// addresses on the test display's clipboard through the D-Bus activated service, and
/// `xclip` reads them back after the program that asked has exited (X11's clipboard belongs
/// to a process: only one that outlives the click can hold it).
extension ServiceTests {
    @Suite(.serialized) struct CopyAddress {
        let sandbox: Sandbox
        let desktop: TestDesktop
        let bus: PrivateSessionBus
        let environment: [String: String]

        init() throws {
            sandbox = try Sandbox()
            desktop = try TestDesktop.second.get()
            var environment = desktop.environment(sandbox.environment)
            environment["AT_SPI_BUS_ADDRESS"] = desktop.accessibilityBusAddress
            environment["MAILTO_ROUTE_SERVICE_IDLE"] = "2"
            environment["MAILTO_ROUTE_HANDOFF"] = nil
            environment["PATH"] = try sandbox.isolatedPath()
            let register = try run(mailtoRouteBinary, ["register"], environment: environment)
            guard register.status == 0 else { throw TestSupportError("register: \(register)") }
            bus = try PrivateSessionBus(serviceDirectory: sandbox.dataHome.appendingPathComponent("dbus-1/services"),
                                        environment: environment)
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            self.environment = environment
        }

        /// What the display's clipboard holds now, as another program pastes it.
        func pasted() throws -> RunResult {
            try run("/usr/bin/xclip", ["-o", "-selection", "clipboard"], environment: environment, timeout: 30)
        }

        func stats() throws -> [String: Any] {
            let log = try run(mailtoRouteBinary, ["log", "--stats", "--json"], environment: environment)
            return try jsonObject(log.stdout)
        }

        /// The brief's link: a percent-encoded name, and an A-label domain with a display
        /// name. Read back after `copy` has exited: decoded, in Unicode, the name kept; the
        /// report and the log say `copied`. The service holds the clipboard (it stays on the
        /// bus past its idle time) until another program takes the clipboard, then leaves.
        @Test func copyLeavesTheAddressesOnTheClipboardAfterItExits() throws {
            let copy = try run(mailtoRouteBinary, ["copy", "mailto:%C3%A5sa@example.org,Joe%20<joe@xn--bcher-kva.example>", "--json"],
                               environment: environment, timeout: 30)
            #expect(copy.status == 0, "\(copy)")
            let report = try jsonObject(copy.stdout)
            #expect(report["path"] as? String == "copy", "\(report)")
            #expect(report["result"] as? String == "copied", "\(report)")
            #expect(report["copied"] as? String == "åsa@example.org, Joe <joe@bücher.example>", "\(report)")
            let clipboard = try pasted()
            #expect(clipboard.status == 0, "\(clipboard)")
            #expect(clipboard.stdout == "åsa@example.org, Joe <joe@bücher.example>", "\(clipboard)")
            let counts = try stats()
            #expect((counts["byResult"] as? [String: Any])?["copied"] as? Int == 1, "\(counts)")

            // Another program copies something: the service's hold ends, and it goes.
            #expect(bus.hasOwner(HeadlessServiceTests.serviceName))
            // xclip in the foreground (-quiet), as a process of the test's own that shares no
            // descriptor with it: xclip's own background copy (its default) inherited the
            // socket by which Foundation's Process learns that a child has ended, and the
            // `run` that started it never returned. It serves one paste, then exits.
            let other = try ServerProcess(["/bin/sh", "-c", "printf other | exec /usr/bin/xclip -i -quiet -loops 1 -selection clipboard"],
                                          environment: environment)
            defer { other.stop() }
            try waitUntil("another program holds the clipboard") { try pasted().stdout == "other" }
            #expect(bus.waitUntilUnowned(HeadlessServiceTests.serviceName, timeout: patience),
                    "the service keeps running after it lost the clipboard")
        }

        /// The chooser (no account: the ways that can start, and Copy Address) with Always on
        /// Copy Address: the addresses on the clipboard after the click ended, `always=copy`
        /// written; the next click copies with no window.
        @Test func chooserCopiesTheAddressAndAlwaysKeepsIt() throws {
            let click = try DesktopProgram([mailtoRouteBinary, "open", "mailto:ann@example.com?cc=Bob%20Berg%20%3Cbob@example.org%3E", "--json"],
                                           environment: environment, directory: sandbox.root)
            let steps = try desktop.drive(["wait-chooser", "pick:Copy Address", serviceScreenshot("copy-address-chooser"), "press:Always", "wait-chooser-gone"], timeout: 30)
            let offered = try #require(steps.first { $0["step"] as? String == "wait-chooser" }?["ways"] as? [String])
            #expect(offered.last == "Copy Address", "\(offered)")
            let result = click.finish(timeout: 30)
            #expect(result.status == 0, "\(result)")
            #expect(try jsonObject(result.stdout)["result"] as? String == "copied", "\(result)")
            #expect(try pasted().stdout == "ann@example.com, Bob Berg <bob@example.org>")
            let config = try String(contentsOf: sandbox.configHome.appendingPathComponent("mailto-route/config"), encoding: .utf8)
            #expect(config.contains("always=copy"), "\(config)")

            let second = try run(mailtoRouteBinary, ["open", "mailto:cy@example.net", "--json"], environment: environment, timeout: 30)
            #expect(second.status == 0, "\(second)")
            #expect(try jsonObject(second.stdout)["result"] as? String == "copied", "\(second)")
            #expect(try pasted().stdout == "cy@example.net")
        }

        /// The sheet's menu has Copy Address too: the recipients as the sheet holds them (its
        /// Cc included, the name kept, the domain in Unicode) on the clipboard, still there
        /// after the click ended.
        @Test func theSheetsMenuCopiesItsRecipients() throws {
            try writeAccount(sandbox, port: 9, security: "none")
            let link = "mailto:ann@example.com?cc=Bob%20Berg%20%3Cbob@xn--bcher-kva.example%3E&subject=Hello"
            let click = try DesktopProgram([mailtoRouteBinary, "open", link, "--json"], environment: environment, directory: sandbox.root)
            _ = try desktop.drive(["wait-sheet", "menu:Copy Address", "wait-label:Copied:", serviceScreenshot("copy-address-toast"), "press:Cancel", "wait-gone"], timeout: 30)
            let result = click.finish(timeout: 30)
            #expect(result.status == 4, "\(result)")
            #expect(try pasted().stdout == "ann@example.com, Bob Berg <bob@bücher.example>")
        }

        /// No session bus, so no service to hold the clipboard: one line that says so, exit 1,
        /// and nothing copied is claimed.
        @Test func copyWithoutASessionBusSaysWhyInOneLine() throws {
            var environment = environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + sandbox.root.appendingPathComponent("no-bus").path
            let copy = try run(mailtoRouteBinary, ["copy", "mailto:ann@example.com"], environment: environment, timeout: 30)
            #expect(copy.status == 1, "\(copy)")
            #expect(copy.stdout.isEmpty, "\(copy)")
            let lines = copy.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(copy)")
            #expect(lines.first?.hasPrefix("mailto-route: not copied: no desktop session to hold the clipboard") == true, "\(copy)")
        }
    }
}
