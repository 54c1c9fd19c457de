import Foundation

/// A loopback port nobody listens on: bound (port 0, the kernel picks) but not listening,
/// so a connection is refused and no other test's server can take the port meanwhile.
public func unlistenedPort() throws -> (Int, Int32) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
        }
    }
    guard bound else {
        close(descriptor)
        throw TestServerError(message: "cannot bind a loopback port")
    }
    return (Int(UInt16(bigEndian: address.sin_port)), descriptor)
}
