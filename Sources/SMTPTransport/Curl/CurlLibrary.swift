internal import CCurl
import MailtoCore

/// libcurl, opened with `dlopen` on first use (see `CCurl/shim.h` for why), and
/// initialised once with `curl_global_init`. 7.66 or later: transfers are driven with
/// `curl_multi_poll` (`CurlEasy.perform`); without it libcurl is not loaded at all.
struct CurlLibrary: @unchecked Sendable {
    /// The entry points; immutable after loading, so sharing across threads is safe.
    let api: mr_curl_api
    /// The same table at a stable address, for the shim's helpers that take a pointer to
    /// it; allocated once per process and never freed (the library is never unloaded).
    let apiPointer: UnsafePointer<mr_curl_api>

    init(api: mr_curl_api) {
        self.api = api
        let stored = UnsafeMutablePointer<mr_curl_api>.allocate(capacity: 1)
        stored.initialize(to: api)
        apiPointer = UnsafePointer(stored)
    }

    /// The process-wide instance, or the reason libcurl could not be loaded. Swift
    /// initialises globals once, thread-safely, which is what `curl_global_init` needs.
    static let shared: Result<CurlLibrary, SMTPError> = {
        var api = mr_curl_api()
        if let failure = mr_curl_load(&api) {
            return .failure(SMTPError(.configuration, tr("cannot load libcurl: %@", String(cString: failure))))
        }
        guard let globalInit = api.global_init, globalInit(mr_curl_global_default()) == CURLE_OK else {
            return .failure(SMTPError(.configuration, tr("curl_global_init failed")))
        }
        return .success(CurlLibrary(api: api))
    }()

    static func load() throws(SMTPError) -> CurlLibrary {
        try shared.get()
    }

    /// Wraps `curl_version_info(CURLVERSION_NOW)`: `version_num` (0xXXYYZZ) and its text.
    var version: (number: Int, text: String) {
        guard let info = api.version_info?(mr_curl_version_now()) else { return (0, "unknown") }
        return (Int(info.pointee.version_num), info.pointee.version.map { String(cString: $0) } ?? "unknown")
    }
}

/// The libcurl this process would send with.
public enum CurlVersion {
    /// Wraps `curl_version_info(CURLVERSION_NOW)`; the data is static in libcurl.
    /// Returns the reason instead when libcurl cannot be loaded.
    public static var current: String {
        switch CurlLibrary.shared {
        case .failure(let error):
            return "unavailable (\(error.message))"
        case .success(let curl):
            guard let info = curl.api.version_info?(mr_curl_version_now()), let version = info.pointee.version else {
                return "unknown"
            }
            var text = String(cString: version)
            if let ssl = info.pointee.ssl_version {
                text += " (\(String(cString: ssl)))"
            }
            return text
        }
    }
}
