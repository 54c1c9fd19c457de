// libFuzzer entry point for the mailto: parser and encoder, compiled together with
// MailtoCore's sources by scripts/fuzz (`swiftc -sanitize=fuzzer`).
//
// Checks, for every input: no crash, no hang (libFuzzer's -timeout), and for every input
// that parses, the round trip: parse(encode(x)) == x and encode is canonical.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard var email = try? MailtoURL.parse(utf8: bytes) else { return 0 }
    // What a URL cannot carry is not written back.
    email.dropped = []
    email.requestedAttachments = []
    let url = MailtoURL.encode(email)
    let again: EmailData
    do {
        again = try MailtoURL.parse(url)
    } catch {
        fatalError("encoded URL does not parse: \(error)\ninput: \(String(decoding: bytes, as: UTF8.self).debugDescription)\nencoded: \(url)")
    }
    guard again == email else {
        fatalError("round trip changed the message\ninput: \(String(decoding: bytes, as: UTF8.self).debugDescription)\nencoded: \(url)\nfirst: \(email)\nagain: \(again)")
    }
    guard MailtoURL.encode(again) == url else {
        fatalError("encoding is not canonical: \(url)")
    }
    return 0
}
