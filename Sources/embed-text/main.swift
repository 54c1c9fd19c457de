// embed-text OUTPUT ENUM NAME=FILE...: writes OUTPUT, a Swift file declaring
// `enum ENUM { static let NAME: String }` with each FILE's text (UTF-8) as a raw string
// literal, so that a module carries the files of data/ (desktop entries, D-Bus service
// files, GtkBuilder .ui files) made into the program at build time, the files in the tree
// being the one source (run by the EmbedText build plugin, never by hand).
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2, let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: embed-text OUTPUT ENUM NAME=FILE...\n".utf8))
    exit(64)
}
let enumName = arguments.dropFirst().first ?? "Embedded"

/// A raw string literal holding `text` exactly: as many `#` as it takes that no `"""#…`
/// or `\#…` inside it ends the literal or interpolates.
func literal(_ text: String) -> String {
    var hashes = 1
    while text.contains("\"\"\"" + String(repeating: "#", count: hashes)) || text.contains("\\" + String(repeating: "#", count: hashes)) {
        hashes += 1
    }
    let fence = String(repeating: "#", count: hashes)
    // The line break before the closing delimiter is not part of a multi-line literal:
    // `text` is kept exactly, its own last line break included.
    return "\(fence)\"\"\"\n\(text)\n\"\"\"\(fence)"
}

var source = "// Made by embed-text at build time from the files named; do not edit.\n\n"
source += "enum \(enumName) {\n"
for pair in arguments.dropFirst(2) {
    guard let equals = pair.firstIndex(of: "=") else {
        FileHandle.standardError.write(Data("embed-text: expected NAME=FILE, got '\(pair)'\n".utf8))
        exit(64)
    }
    let name = pair[..<equals]
    let path = String(pair[pair.index(after: equals)...])
    guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
        FileHandle.standardError.write(Data("embed-text: cannot read '\(path)' as UTF-8\n".utf8))
        exit(66)
    }
    source += "    /// \(URL(fileURLWithPath: path).lastPathComponent)\n"
    source += "    static let \(name) = \(literal(text))\n"
}
source += "}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output))
} catch {
    FileHandle.standardError.write(Data("embed-text: cannot write '\(output)': \(error)\n".utf8))
    exit(73)
}
