@testable import SMTPTransport

/// One step of an SMTP dialogue as libcurl's debug callback hands it to `log`: the line
/// the client sent (if any), then what the server answered (if anything).
func feed(_ log: inout ReplyLog, client: String? = nil, server: String? = nil) {
    if let client { Array(client.utf8).withUnsafeBufferPointer { log.clientLine($0) } }
    if let server { Array(server.utf8).withUnsafeBufferPointer { log.serverData($0) } }
}
