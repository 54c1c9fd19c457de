import Foundation

/// What Thunderbird would read in a `-compose` argument, by Resources/thunderbird_compose.py
/// (a re-implementation of Thunderbird's GetArgs and ComposeStartup from its source): an
/// independent judge of the word mailto-route builds.
public struct ThunderbirdCompose: Sendable {
    /// Each field as Thunderbird holds it after decoding.
    public var fields: [String: String]
    /// What it attaches, as today's Thunderbird splits the list: a file's path, or `uri:`
    /// and a URI that is no local file.
    public var attachments: [String]
    /// The same, as Thunderbird 115 to 140 split it (on every comma, before bug 900117).
    public var attachmentsBefore900117: [String]
    /// The bytes of each attached file's path (`attachments` shows a byte that is not
    /// UTF-8 as U+FFFD).
    public var attachedPathBytes: [[UInt8]]

    public init(reading argument: String) throws {
        let result = try run("/usr/bin/python3", [resourcePath("thunderbird_compose.py"), argument])
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let fields = object["fields"] as? [String: String]
        else { throw TestServerError(message: "thunderbird_compose.py failed: \(result)") }
        func attached(_ key: String) -> [String] {
            (object[key] as? [[String: String]] ?? []).map { item in
                item["file"] ?? "uri:" + (item["uri"] ?? "")
            }
        }
        self.fields = fields
        attachments = attached("attachments")
        attachedPathBytes = (object["attachments"] as? [[String: String]] ?? []).compactMap { item in
            item["fileHex"].map { hex in
                stride(from: 0, to: hex.count, by: 2).compactMap { offset in
                    let start = hex.index(hex.startIndex, offsetBy: offset)
                    return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
                }
            }
        }
        attachmentsBefore900117 = attached("attachmentsBefore900117")
    }
}
