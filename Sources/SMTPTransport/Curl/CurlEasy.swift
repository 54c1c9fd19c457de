internal import CCurl
#if canImport(Glibc)
import Glibc
#endif
import MailtoCore

/// One libcurl easy handle and everything that must live as long as it: the one Swift
/// owner of the `CURL *` (`curl_easy_cleanup` in `deinit`), of the multi handle that drives
/// its transfers and holds its connection between them (`curl_multi_cleanup`), of the
/// recipient `curl_slist` (`curl_slist_free_all`), and of the error buffer libcurl writes
/// into. A handle kept for many transfers keeps its connection (`SMTPSession`).
final class CurlEasy {
    private let curl: CurlLibrary
    private let handle: UnsafeMutableRawPointer
    private let multi: UnsafeMutableRawPointer
    /// The list each slist option points at now, by option.
    private var lists: [UInt32: UnsafeMutablePointer<curl_slist>] = [:]
    /// CURLOPT_ERRORBUFFER: CURL_ERROR_SIZE bytes that libcurl fills on failure.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Wraps `curl_easy_init` and `curl_multi_init` (both ours until `deinit`).
    init(_ curl: CurlLibrary) throws(SMTPError) {
        guard let easyInit = curl.api.easy_init, let handle = easyInit() else {
            throw SMTPError(.transient, tr("curl_easy_init failed (out of memory?)"))
        }
        guard let multiInit = curl.api.multi_init, let multi = multiInit() else {
            curl.api.easy_cleanup?(handle)
            throw SMTPError(.transient, tr("curl_multi_init failed (out of memory?)"))
        }
        self.curl = curl
        self.handle = handle
        self.multi = multi
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        // The multi handle first: it closes the connection it keeps (a QUIT, answered at
        // once by a server that is still talking; one that went silent had its connection
        // shut down when its transfer ended, see `perform`). Then the easy handle: it may
        // still point at the lists and the buffer.
        _ = curl.api.multi_cleanup?(multi)
        curl.api.easy_cleanup?(handle)
        for list in lists.values { curl.api.slist_free_all?(list) }
        errorBuffer.deallocate()
    }

    // MARK: - Options (each through a typed helper of CCurl/shim.h)

    func set(_ option: CURLoption, _ value: Int) throws(SMTPError) {
        try check(mr_curl_setopt_long(apiPointer, handle, option, value), option)
    }

    /// A `curl_off_t` option (`CURLOPT_INFILESIZE_LARGE`).
    func set(_ option: CURLoption, size: Int) throws(SMTPError) {
        try check(mr_curl_setopt_off_t(apiPointer, handle, option, curl_off_t(size)), option)
    }

    /// libcurl copies string options (since 7.17), so `value` need not outlive the call.
    func set(_ option: CURLoption, _ value: String) throws(SMTPError) {
        try check(value.withCString { mr_curl_setopt_string(apiPointer, handle, option, $0) }, option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(SMTPError) {
        try check(mr_curl_setopt_pointer(apiPointer, handle, option, pointer), option)
    }

    /// Wraps `curl_slist_append`; the list is freed when the option is set again (the
    /// handle then points at the new one) or in `deinit`, after the handle is gone.
    func set(_ option: CURLoption, list strings: [String]) throws(SMTPError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for string in strings {
            guard let appended = string.withCString({ curl.api.slist_append?(list, $0) }) else {
                if let list { curl.api.slist_free_all?(list) }
                throw SMTPError(.transient, tr("curl_slist_append failed (out of memory?)"))
            }
            list = appended
        }
        let code = mr_curl_setopt_slist(apiPointer, handle, option, list)
        guard code == CURLE_OK else {
            if let list { curl.api.slist_free_all?(list) }
            try check(code, option)
            return
        }
        if let previous = lists.removeValue(forKey: option.rawValue) { curl.api.slist_free_all?(previous) }
        if let list { lists[option.rawValue] = list }
    }

    /// Forgets the pointers one transfer gave its callbacks: libcurl may still call the
    /// debug callback outside a transfer (the QUIT it sends when the handle is cleaned
    /// up), and each callback does nothing without its data.
    func clearTransferData() {
        for option in [CURLOPT_READDATA, CURLOPT_DEBUGDATA, CURLOPT_XFERINFODATA] {
            _ = mr_curl_setopt_pointer(apiPointer, handle, option, nil)
        }
        _ = mr_curl_setopt_long(apiPointer, handle, CURLOPT_NOPROGRESS, 1)
    }

    func setReadCallback(_ callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int,
                         data: UnsafeMutableRawPointer) throws(SMTPError) {
        try check(mr_curl_setopt_read_callback(apiPointer, handle, callback), CURLOPT_READFUNCTION)
        try set(CURLOPT_READDATA, pointer: data)
    }

    func setWriteCallback(_ callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int) throws(SMTPError) {
        try check(mr_curl_setopt_write_callback(apiPointer, handle, callback), CURLOPT_WRITEFUNCTION)
    }

    func setDebugCallback(_ callback: @convention(c) (UnsafeMutableRawPointer?, curl_infotype, UnsafeMutablePointer<CChar>?, Int, UnsafeMutableRawPointer?) -> Int32,
                          data: UnsafeMutableRawPointer) throws(SMTPError) {
        try check(mr_curl_setopt_debug_callback(apiPointer, handle, callback), CURLOPT_DEBUGFUNCTION)
        try set(CURLOPT_DEBUGDATA, pointer: data)
        try set(CURLOPT_VERBOSE, 1)
    }

    func setProgressCallback(_ callback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32,
                             data: UnsafeMutableRawPointer) throws(SMTPError) {
        try check(mr_curl_setopt_xferinfo_callback(apiPointer, handle, callback), CURLOPT_XFERINFOFUNCTION)
        try set(CURLOPT_XFERINFODATA, pointer: data)
        try set(CURLOPT_NOPROGRESS, 0)
    }

    /// `curl_easy_setopt`'s result for an option this libcurl may not know (too old).
    func trySet(_ option: CURLoption, _ value: String) -> Bool {
        value.withCString { mr_curl_setopt_string(apiPointer, handle, option, $0) } == CURLE_OK
    }

    func trySet(_ option: CURLoption, _ value: Int) -> Bool {
        mr_curl_setopt_long(apiPointer, handle, option, value) == CURLE_OK
    }

    // MARK: - Transfer

    /// One transfer, the whole SMTP session, blocking: `curl_multi_perform` whenever the
    /// socket is ready or libcurl has a timer due, and at the latest at `wakeAt()` (a
    /// monotonic time in milliseconds, asked again each round), so that the progress
    /// callback, which ends a transfer that waited too long, runs when that time comes
    /// (`curl_easy_perform` would run it up to a second late). Returns the transfer's result.
    ///
    /// A transfer cut short (timed out, or aborted by a callback) leaves its connection in
    /// a state nobody knows: it is shut down before the handle leaves the multi handle, so
    /// that it is never used again and its QUIT, when libcurl closes it, fails at once
    /// rather than wait for a server that stopped answering.
    ///
    /// `stop`: a person's Stop wakes the wait (`curl_multi_wakeup`), and the progress
    /// callback, which libcurl runs at every turn of a transfer that has a connection, ends
    /// it. Never by taking the handle out of the multi handle: libcurl would then end the
    /// SMTP data as if it were complete (its `smtp_done` sees no error), and the server
    /// would take a message cut short.
    func perform(wakeAt: () -> Int, stop: SendStop? = nil) -> CURLcode {
        guard let add = curl.api.multi_add_handle, let remove = curl.api.multi_remove_handle,
              let step = curl.api.multi_perform, let poll = curl.api.multi_poll, let next = curl.api.multi_info_read,
              add(multi, handle) == CURLM_OK
        else { return CURLE_FAILED_INIT }
        defer { _ = remove(multi, handle) }
        var running: Int32 = 1
        func turns() -> Bool {
            while running > 0 {
                guard step(multi, &running) == CURLM_OK else { return false }
                guard running > 0 else { break }
                // At most a second: libcurl's own timers (connect, a blocked upload) cut the
                // wait shorter by themselves.
                let wait = min(1000, max(0, wakeAt() - MonotonicClock.milliseconds))
                guard poll(multi, nil, 0, Int32(wait), nil) == CURLM_OK else { return false }
            }
            return true
        }
        let ran: Bool
        if let stop, let wakeup = curl.api.multi_wakeup {
            let shared = UncheckedMulti(pointer: multi)
            ran = stop.whileTransferring(wake: { _ = wakeup(shared.pointer) }, turns)
        } else {
            ran = turns()
        }
        guard ran else { return CURLE_FAILED_INIT }
        var result = CURLE_FAILED_INIT
        var queued: Int32 = 0
        while let message = next(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { result = mr_curl_msg_result(message) }
        }
        if result == CURLE_OPERATION_TIMEDOUT || result == CURLE_ABORTED_BY_CALLBACK { shutDownConnection() }
        return result
    }

    /// The multi handle, for `curl_multi_wakeup` from the thread that asks a stop: the one
    /// call libcurl allows on it from another thread.
    private struct UncheckedMulti: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    // MARK: - A connection of our own (CURLOPT_CONNECT_ONLY)

    /// Wraps `curl_easy_perform` with `CURLOPT_CONNECT_ONLY` set: connects, secures and,
    /// for IMAP, logs in (libcurl's own greeting, CAPABILITY, STARTTLS and SASL), then
    /// leaves the connection to `send` and `receive`. Not through the multi handle, which
    /// would close a connect-only connection as the handle left it.
    func connectOnly() -> CURLcode {
        guard let perform = curl.api.easy_perform else { return CURLE_FAILED_INIT }
        return perform(handle)
    }

    /// Wraps `curl_easy_send`: all of `bytes`, waiting (`poll(2)`) while the socket takes
    /// no more, until `deadline` (`MonotonicClock.milliseconds`).
    func send(_ bytes: some Collection<UInt8>, deadline: Int) -> CURLcode {
        guard let easySend = curl.api.easy_send else { return CURLE_FAILED_INIT }
        var pending = Array(bytes)[...]
        while !pending.isEmpty {
            var sent = 0
            let code = pending.withUnsafeBytes { easySend(handle, $0.baseAddress, $0.count, &sent) }
            if code == CURLE_AGAIN {
                guard waitForSocket(events: Int16(POLLOUT), deadline: deadline) else { return CURLE_OPERATION_TIMEDOUT }
                continue
            }
            guard code == CURLE_OK else { return code }
            pending = pending.dropFirst(sent)
        }
        return CURLE_OK
    }

    /// Wraps `curl_easy_recv`: what the server has sent, at least one byte, waiting
    /// (`poll(2)`) until `deadline`; no bytes and `CURLE_OK` when the server closed the
    /// connection.
    func receive(deadline: Int) -> (bytes: [UInt8], code: CURLcode) {
        guard let easyReceive = curl.api.easy_recv else { return ([], CURLE_FAILED_INIT) }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            var received = 0
            let code = buffer.withUnsafeMutableBytes { easyReceive(handle, $0.baseAddress, $0.count, &received) }
            if code == CURLE_AGAIN {
                guard waitForSocket(events: Int16(POLLIN), deadline: deadline) else { return ([], CURLE_OPERATION_TIMEDOUT) }
                continue
            }
            return (Array(buffer.prefix(received)), code)
        }
    }

    /// Wraps `poll(2)` on the connection's socket: whether `events` came before `deadline`.
    private func waitForSocket(events: Int16, deadline: Int) -> Bool {
        var socket: curl_socket_t = -1
        guard mr_curl_getinfo_socket(apiPointer, handle, &socket) == CURLE_OK, socket >= 0 else { return false }
        while true {
            let wait = deadline - MonotonicClock.milliseconds
            guard wait > 0 else { return false }
            var entry = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(wait, Int(Int32.max))))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return false }
        }
    }

    /// Wraps `curl_easy_getinfo(CURLINFO_ACTIVESOCKET)` (found only while the handle is in
    /// its multi handle) and `shutdown(2)`: the connection kept from the last transfer is
    /// finished, without a word to the server.
    private func shutDownConnection() {
        var socket: curl_socket_t = -1
        if mr_curl_getinfo_socket(apiPointer, handle, &socket) == CURLE_OK, socket >= 0 {
            shutdown(socket, Int32(SHUT_RDWR))
        }
    }

    /// Wraps `curl_easy_getinfo(CURLINFO_RESPONSE_CODE)`: the last SMTP reply code, 0 if none.
    var responseCode: Int {
        var code = 0
        _ = mr_curl_getinfo_long(apiPointer, handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// What libcurl wrote in the error buffer, else `curl_easy_strerror(code)` (static text).
    func errorText(_ code: CURLcode) -> String {
        if errorBuffer.pointee != 0 { return String(cString: errorBuffer) }
        return curl.api.easy_strerror?(code).map { String(cString: $0) } ?? tr("libcurl error %@", code.rawValue)
    }

    // MARK: - Private

    private var apiPointer: UnsafePointer<mr_curl_api> { curl.apiPointer }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(SMTPError) {
        guard code == CURLE_OK else {
            throw SMTPError(.configuration, tr("libcurl refused option %@: %@", option.rawValue, errorText(code)))
        }
    }
}
