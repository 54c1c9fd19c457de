import MailtoRoute

/// One option a command accepts.
struct OptionSpec: Sendable {
    enum Arity: Sendable {
        /// `--json`
        case flag
        /// `--subject S`; given twice is a usage error.
        case single
        /// `--to A --to B`
        case repeated
    }

    var name: String
    var arity: Arity
    /// What the value is called in the help (`A` in `--to A`); `nil` for a flag.
    var valueName: String?
    /// What it does, in one line of the command's help.
    var help: String

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, arity: .flag, help: help)
    }

    static func single(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, arity: .single, valueName: valueName, help: help)
    }

    static func repeated(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, arity: .repeated, valueName: valueName, help: help)
    }

    /// `--help` and `-h`, which every command takes.
    static let helpNames = ["-h", "--help"]
}

/// A command line after parsing against a command's options.
struct Arguments: Sendable {
    private(set) var flags: Set<String> = []
    private(set) var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []
    /// `--help` or `-h` was given as an option: the command's help is printed instead.
    private(set) var helpRequested = false

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func value(_ option: String) -> String? { values[option]?.last }
    func all(_ option: String) -> [String] { values[option] ?? [] }

    /// The first positional argument, which the command cannot do without (`what` names it).
    func required(_ what: String, usage: String) throws(UsageError) -> String {
        guard let first = positionals.first else { throw UsageError("missing \(what)", usage: usage) }
        return first
    }

    /// Parses `words` (without the command name): `--name`, `--name value`,
    /// `--name=value`, `--` to end options, and `-` as a word (standard input).
    /// A word that is not an option is positional; at most `maxPositionals` of them.
    /// `--help` or `-h` where an option may stand ends parsing: whatever else the line
    /// holds, the person wants to know how to write it.
    init(_ words: [String], options: [OptionSpec], maxPositionals: Int, usage: String) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            guard !optionsEnded, word.hasPrefix("-"), word != "-" else {
                positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            if OptionSpec.helpNames.contains(word) {
                helpRequested = true
                return
            }
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                let suggestion = closest(to: name, among: options.map(\.name) + ["--help"])
                throw UsageError("unknown option '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""), usage: usage)
            }
            switch spec.arity {
            case .flag:
                guard inlineValue == nil else {
                    throw UsageError("option '\(name)' takes no value", usage: usage)
                }
                flags.insert(name)
            case .single, .repeated:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < words.count else {
                        throw UsageError("option '\(name)' needs a value", usage: usage)
                    }
                    value = words[index]
                    index += 1
                }
                if spec.arity == .single, values[name] != nil {
                    throw UsageError("option '\(name)' given twice", usage: usage)
                }
                values[name, default: []].append(value)
            }
        }
        if positionals.count > maxPositionals {
            let extra = positionals[maxPositionals]
            throw UsageError("unexpected argument '\(extra)'", usage: usage)
        }
    }
}
