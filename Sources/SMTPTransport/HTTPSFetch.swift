internal import CCurl
import MailtoCore

/// One HTTPS GET with libcurl, for mail server discovery (a domain's autoconfig file,
/// docs/accounts.md "Setting up an account"): here because libcurl is this module's, and a
/// second copy of its loading would be worse than an HTTP request beside SMTP. HTTPS only,
/// the certificate verified as for SMTP (the system's anchors, plus `caFile`), no
/// redirects followed, bounded in size and in time.
public enum HTTPSFetch {
    /// What came back: the status and the body (at most the limit asked for).
    public struct Response: Sendable, Equatable {
        public var status: Int
        public var body: [UInt8]
    }

    /// GETs `url` (an `https://` URL) within `milliseconds`, keeping at most `maxBytes` of
    /// its body: a longer one ends the transfer and is an error, as is a slow server.
    /// Throws `SMTPError` (kind `transient`, "no answer" with libcurl's words as its
    /// detail, without the URL: the caller names it as it wants it read) when no answer came.
    public static func get(
        _ url: String, caFile: String? = nil, maxBytes: Int = 256 * 1024, milliseconds: Int = 10_000
    ) throws(SMTPError) -> Response {
        guard url.hasPrefix("https://"), !url.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw SMTPError(.configuration, tr("not an https URL: %@", url.visible))
        }
        let easy = try CurlEasy(try CurlLibrary.load())
        try easy.set(CURLOPT_URL, url)
        if !easy.trySet(mr_curlopt_protocols_str(), "https") {
            try easy.set(mr_curlopt_protocols(), mr_curl_proto_https())
        }
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_FOLLOWLOCATION, 0)
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile {
            try easy.set(CURLOPT_CAINFO, caFile)
            try easy.set(CURLOPT_CAPATH, "/etc/ssl/certs")
        }
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, milliseconds))
        try easy.set(CURLOPT_TIMEOUT_MS, max(1, milliseconds))
        try easy.set(CURLOPT_MAXFILESIZE, maxBytes)
        try easy.set(CURLOPT_USERAGENT, "mailto-route")
        let body = BodyBuffer(limit: maxBytes)
        try easy.setWriteCallback(curlCollectCallback)
        try easy.set(CURLOPT_WRITEDATA, pointer: Unmanaged.passUnretained(body).toOpaque())
        let deadline = MonotonicClock.milliseconds + milliseconds
        let code = withExtendedLifetime(body) { easy.perform(wakeAt: { deadline }) }
        _ = try? easy.set(CURLOPT_WRITEDATA, pointer: nil)
        if body.overflowed || code == CURLE_FILESIZE_EXCEEDED {
            throw SMTPError(.permanent, tr("the answer is larger than %@ KB", maxBytes / 1024))
        }
        guard code == CURLE_OK else {
            // libcurl's words are the detail (English in every locale, rule 10).
            let sentence = code == CURLE_OPERATION_TIMEDOUT ? tr("no answer in time") : tr("no answer")
            throw SMTPError(.transient, sentence, cause: code == CURLE_OPERATION_TIMEDOUT ? .timeout : nil, detail: easy.errorText(code))
        }
        return Response(status: easy.responseCode, body: body.bytes)
    }
}

/// The body of one `HTTPSFetch`, passed to libcurl unretained for the transfer's length.
private final class BodyBuffer {
    let limit: Int
    var bytes: [UInt8] = []
    var overflowed = false

    init(limit: Int) { self.limit = limit }
}

/// CURLOPT_WRITEFUNCTION of a fetch: keeps the bytes up to the limit; one more ends the
/// transfer (returning less than it was given).
private func curlCollectCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let userdata else { return 0 }
    let body = Unmanaged<BodyBuffer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard body.bytes.count + length <= body.limit else {
        body.overflowed = true
        return 0
    }
    body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: length))
    return length
}
