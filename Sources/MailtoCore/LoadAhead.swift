#if canImport(Glibc)
import Glibc
#endif

/// Runs `load` on a detached thread of its own, for a process that knows early which large
/// library it will open (libcurl for a send, GIO for a click): the library loads on the
/// second core while this one reads the words and the configuration. `load` touches the
/// library's once-only global (a Swift `static let`), so that its first user waits for
/// this load rather than starting another. Without a thread to be had, that first user
/// loads the library itself, as it always could.
public func loadAhead(_ load: @escaping @Sendable () -> Void) {
    let body = Unmanaged.passRetained(AheadBody(load)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    if pthread_create(&thread, &attributes, runAhead, body) != 0 {
        Unmanaged<AheadBody>.fromOpaque(body).release()
    }
}

private final class AheadBody {
    let load: @Sendable () -> Void

    init(_ load: @escaping @Sendable () -> Void) {
        self.load = load
    }
}

private func runAhead(_ body: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let body else { return nil }
    Unmanaged<AheadBody>.fromOpaque(body).takeRetainedValue().load()
    return nil
}
