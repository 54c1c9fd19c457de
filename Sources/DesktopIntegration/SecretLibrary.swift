internal import CGIO

/// libsecret, opened with `dlopen` the first time a password is looked up in the keyring
/// (see `CGIO/secret.h` for why: no other path needs it), and never unloaded. GIO is
/// loaded first: libsecret's own dependency on it resolves to that copy.
enum SecretLibrary {
    /// The one table of entry points in the process, or the reason libsecret (or GIO)
    /// could not be loaded; as `GIOLibrary`'s (see `loadTable`).
    nonisolated(unsafe) private static let shared: Result<UnsafePointer<mr_secret_api>, DesktopError> = {
        do throws(DesktopError) { _ = try GIOLibrary.load() } catch { return .failure(error) }
        return loadTable("libsecret") { mr_secret_load($0) }
    }()

    /// The loaded table; throws when libsecret (or GIO) cannot be loaded.
    static func load() throws(DesktopError) -> UnsafePointer<mr_secret_api> {
        try shared.get()
    }
}
