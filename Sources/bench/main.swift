import Foundation

// `make bench`: each figure next to a reference measured in the same run, as a ratio
// (absolute times on shared machines are noise; ratios in one run are not).

let sections: [String: () -> Void] = [
    "parse": benchParse, "handoff": benchHandoff, "check": benchCheck, "send": benchSend, "flush": benchFlush,
    "memory": benchMemory, "sheet": benchSheet, "books": benchBooks,
]
let order = ["parse", "handoff", "check", "send", "flush", "memory", "sheet", "books"]
/// `--quick`: the send and flush sections at a tenth of their size, a check that they run
/// and where they write (the bench's own test), not a figure to quote.
let quick = CommandLine.arguments.contains("--quick")
let named = CommandLine.arguments.dropFirst().filter { $0 != "--quick" }
let wanted = named.isEmpty ? order : Array(named)
for name in wanted {
    guard let section = sections[name] else {
        FileHandle.standardError.write(Data("bench: unknown section '\(name)' (known: \(order.joined(separator: ", ")))\n".utf8))
        exit(64)
    }
    section()
    // Each section's figures are out as it finishes, also into a pipe or a file (`make
    // bench | tee`, the bench's test), where stdio would keep them to the end: a run of
    // several minutes shows where each target stands as it goes, and one cut short keeps
    // what it measured. (`fflush(nil)`: every stream; Swift 6 does not let `stdout` be named.)
    fflush(nil)
}
