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

    static func flag(_ name: String) -> OptionSpec { OptionSpec(name: name, arity: .flag) }
    static func single(_ name: String) -> OptionSpec { OptionSpec(name: name, arity: .single) }
    static func repeated(_ name: String) -> OptionSpec { OptionSpec(name: name, arity: .repeated) }
}

/// A command line after parsing against a command's options.
struct Arguments: Sendable {
    private(set) var flags: Set<String> = []
    private(set) var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []

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
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(name)'", usage: usage)
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
