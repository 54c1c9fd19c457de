internal import CGIO

/// libsecret, opened with `dlopen` the first time a password is looked up in the keyring
/// (see `CGIO/secret.h` for why: no other path needs it), and never unloaded. GIO is
/// loaded first: libsecret's own dependency on it resolves to that copy.
enum SecretLibrary {
    /// The one table of entry points in the process, or the reason libsecret could not be
    /// loaded; as `GIOLibrary.shared`: filled completely or not at all, then only read,
    /// never copied, never freed (`nonisolated(unsafe)` for the same reason).
    nonisolated(unsafe) private static let shared: Result<UnsafePointer<mr_secret_api>, DesktopError> = {
        do throws(DesktopError) { _ = try GIOLibrary.load() } catch { return .failure(error) }
        let table = UnsafeMutablePointer<mr_secret_api>.allocate(capacity: 1)
        if let failure = mr_secret_load(table) {
            table.deallocate()
            return .failure(DesktopError(.configuration, "cannot load libsecret: \(String(cString: failure))"))
        }
        return .success(UnsafePointer(table))
    }()

    /// The loaded table; throws when libsecret (or GIO) cannot be loaded.
    static func load() throws(DesktopError) -> UnsafePointer<mr_secret_api> {
        try shared.get()
    }
}
