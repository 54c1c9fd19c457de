#if canImport(Glibc)
import Glibc
#endif
import MailtoRoute

// Test-only: hands a message off the way the router and `send --attach` will, with
// attachments and a body from a file, so that DesktopIntegrationTests can read each mail
// client's command line back from a real launch in a sandbox. Not installed.
//
//   handoff-probe URL [--attach PATH]... [--body-file PATH] [--handler ID]
//   handoff-probe --list      every mailto: handler, one per line

if CommandLine.arguments.dropFirst().first == "--list" {
    for handler in MailHandlers.all() {
        var flags: [String] = []
        if handler.isDefault { flags.append("default") }
        if handler.isMailtoRoute { flags.append("itself") }
        switch handler.packaging {
        case .native: break
        case .flatpak(let appID): flags.append("flatpak:\(appID)")
        case .snap(let name): flags.append("snap:\(name)")
        }
        print([handler.id, handler.name, handler.executable, flags.joined(separator: ",")].joined(separator: "|"))
    }
    exit(0)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
    print("usage: handoff-probe URL [--attach PATH]... [--body-file PATH] [--handler ID]")
    exit(64)
}
let url = arguments.removeFirst()
var attachments: [Attachment] = []
var handler: String?
var bodyFile: String?
while arguments.count >= 2 {
    let (option, value) = (arguments[0], arguments[1])
    arguments.removeFirst(2)
    switch option {
    case "--attach": attachments.append(.file(value))
    case "--handler": handler = value
    case "--body-file": bodyFile = value
    default: print("unknown option \(option)"); exit(64)
    }
}
do {
    var email = try MailtoURL.parse(url)
    email.attachments = attachments
    if let bodyFile, let file = fopen(bodyFile, "r") {
        var bytes: [UInt8] = []
        while case let byte = getc(file), byte != EOF { bytes.append(UInt8(byte)) }
        fclose(file)
        email.body = String(decoding: bytes, as: UTF8.self)
    }
    let result = try handOff(email, handler: handler)
    print("handed off to \(result.handlerName) (\(result.handlerID))")
    for warning in result.warnings { print("warning: \(warning)") }
    for item in result.notCarried { print("not carried: \(item)") }
} catch {
    print("error: \(error)")
    exit(1)
}
