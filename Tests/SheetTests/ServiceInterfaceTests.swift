import Foundation
import Testing
import TestSupport

/// The service's D-Bus interface is described once, in the file it ships
/// (data/io.github.mailto_route.MailtoRoute1.xml, installed in share/dbus-1/interfaces/) and
/// reads at each start: what the running service exports is that file, member for member.
extension ServiceTests.Service {
    @Test func theRunningServiceExportsItsShippedInterfaceDescription() throws {
        // Introspect is a method call: the bus starts the service for it.
        let introspected = try run("/usr/bin/gdbus", [
            "introspect", "--address", bus.address, "--dest", "io.github.mailto_route.MailtoRoute",
            "--object-path", "/io/github/mailto_route/MailtoRoute", "--xml",
        ], environment: environment, timeout: 40)
        #expect(introspected.status == 0, "\(introspected)")
        let exported = sandbox.root.appendingPathComponent("introspected.xml")
        try Data(introspected.stdout.utf8).write(to: exported)
        let shipped = packageRoot.appendingPathComponent("data/io.github.mailto_route.MailtoRoute1.xml")
        // Python's XML parser reads both: the interface's methods and signals, each with its
        // arguments' names, types and directions (a method's argument is "in" unless it says).
        let members = """
            import json, sys, xml.etree.ElementTree as ET
            def members(path):
                root = ET.parse(path).getroot()
                found = [i for i in root.iter("interface") if i.get("name") == "io.github.mailto_route.MailtoRoute1"]
                if len(found) != 1:
                    return None
                return sorted([kind, member.get("name"),
                               [[a.get("name"), a.get("type"), a.get("direction", "in" if kind == "method" else "")]
                                for a in member.findall("arg")]]
                              for kind in ("method", "signal", "property") for member in found[0].findall(kind))
            print(json.dumps([members(sys.argv[1]), members(sys.argv[2])]))
            """
        let compared = try run("/usr/bin/python3", ["-c", members, exported.path, shipped.path])
        #expect(compared.status == 0, "\(compared)")
        let pair = try #require(try? JSONSerialization.jsonObject(with: Data(compared.stdout.utf8)) as? [Any], "\(compared)")
        let (running, file) = (pair[0] as? [[Any]], pair[1] as? [[Any]])
        #expect(running != nil && file != nil, "\(compared.stdout)")
        #expect(running.map { "\($0)" } == file.map { "\($0)" }, "exported \(String(describing: running)), shipped \(String(describing: file))")
        #expect(file?.count == 3, "Compose, Copy and Finished: \(String(describing: file))")
    }
}
