import Foundation

// `make bench`: each figure next to a reference measured in the same run, as a ratio
// (absolute times on shared machines are noise; ratios in one run are not).

let sections: [String: () -> Void] = [
    "parse": benchParse, "handoff": benchHandoff, "check": benchCheck, "send": benchSend, "flush": benchFlush,
    "memory": benchMemory, "sheet": benchSheet,
]
let order = ["parse", "handoff", "check", "send", "flush", "memory", "sheet"]
let wanted = CommandLine.arguments.count > 1 ? Array(CommandLine.arguments.dropFirst()) : order
for name in wanted {
    guard let section = sections[name] else {
        FileHandle.standardError.write(Data("bench: unknown section '\(name)' (known: \(order.joined(separator: ", ")))\n".utf8))
        exit(64)
    }
    section()
}
