import Foundation
import PackagePlugin

/// Makes the files a target names in its `embedded.txt` (one `NAME PATH` a line, PATH from
/// the package's root) into a Swift source of that target, `Embedded.NAME`, at build time:
/// the file in the tree is the one source of its text, and nothing is looked up at run time.
@main struct EmbedText: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SourceModuleTarget else { return [] }
        let list = module.directoryURL.appending(path: "embedded.txt")
        let text = try String(contentsOf: list, encoding: .utf8)
        var pairs: [String] = []
        var inputs = [list]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.allSatisfy({ $0 == " " }) {
            let words = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard words.count == 2 else { throw PluginError("\(list.path): expected 'NAME PATH', got '\(line)'") }
            let file = context.package.directoryURL.appending(path: words[1])
            inputs.append(file)
            pairs.append("\(words[0])=\(file.path)")
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "Embedded.swift")
        return [.buildCommand(
            displayName: "Embedding \(pairs.count) files in \(target.name)",
            executable: try context.tool(named: "embed-text").url,
            arguments: [output.path, "Embedded"] + pairs,
            inputFiles: inputs, outputFiles: [output])]
    }
}

struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
