import Foundation
import MailtoCore
@testable import Outbox
import TestSupport

/// A small RFC 5322 message, as the MIME builder would hand it over.
func sampleMessage(_ index: Int = 0, subject: String? = nil, bodySize: Int = 0) -> OutboxMessage {
    var text = "From: Jane <jane@example.org>\r\nTo: joe@example.org\r\n"
    text += "Subject: \(subject ?? "message \(index)")\r\nMessage-ID: <\(index)@test.example>\r\n\r\n"
    text += "Hello \(index)\r\n" + String(repeating: "x", count: bodySize)
    return OutboxMessage(
        bytes: Array(text.utf8), envelopeFrom: "jane@example.org", recipients: ["joe@example.org"],
        server: "smtp.example.org:587"
    )
}

/// An outbox in its own sandbox, where mailto-route would put it.
func sandboxOutbox(_ sandbox: Sandbox) -> Outbox {
    Outbox(directory: sandbox.stateHome.appendingPathComponent("mailto-route/outbox").path)
}

func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

func names(in path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}

/// An error a sender throws, with a kind.
struct FakeSendError: ClassifiedError {
    var kind: ErrorKind
    var description: String { "fake \(kind.rawValue) failure" }
}

let tortureBinary = builtExecutable("outbox-torture")

/// The ids in a deliveries file, one a line, in order.
func deliveries(_ path: String) -> [String] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
}


