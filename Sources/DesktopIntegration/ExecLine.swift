internal import CGIO

/// An application's `Exec=` as the words it runs, split as GIO splits it
/// (`g_shell_parse_argv`), with the program it really runs found behind the wrappers in
/// front of it (`env VAR=x`, `flatpak run APP-ID`, `tmux new-window`, `xterm -e`).
///
/// A desktop id says what a package called its entry, not what runs: an entry
/// `neomutt.desktop` whose `Exec=` is `tmux new-window neomutt %u` runs tmux, and tmux
/// takes none of neomutt's options. A client's command line goes only to the program that
/// really reads it, and only through wrappers that pass words on as argv words.
public struct ExecLine: Sendable, Equatable {
    /// What stands between `Exec=`'s first word and the program.
    public enum Wrapper: Sendable, Equatable {
        /// `env [-i] [-u NAME] [NAME=VALUE]... PROGRAM`: execs PROGRAM with the words after it.
        case env
        /// `flatpak run [OPTION]... APP-ID`; `command` is `--command=`'s value.
        case flatpak(appID: String, command: String?)
        /// `tmux new-window | split-window | new-session [OPTION]... PROGRAM ARG...`: with
        /// more than one word after its options, tmux (3.0 and later) execs them as they
        /// are, with no shell; a client command line always has more than one.
        case tmux
        /// A terminal emulator's own way to run a command whose words follow as argv
        /// (`xterm -e`, `gnome-terminal --`, `xfce4-terminal -x`).
        case terminal(String)
        /// A shell (`sh -c`) or a launcher that chooses the program itself (`exo-open`,
        /// `xdg-open`): words added after it would be shell text or not reach the program,
        /// so no client command line goes through it.
        case opaque(String)
    }

    /// `Exec=` split into words, field codes (`%u`) kept.
    public let words: [String]
    /// Where in `words` the program really run is (for Flatpak, the app id).
    public let programIndex: Int
    /// The wrappers in front of it, outermost first.
    public let wrappers: [Wrapper]

    /// The program really run: a path or a name looked up in `PATH` (for Flatpak, the app id).
    public var program: String { words[programIndex] }

    /// Whether words added after the program reach it as its own argv words.
    public var passesArguments: Bool {
        !wrappers.contains { if case .opaque = $0 { true } else { false } }
    }

    /// The names the program goes by, lower-case, for recognising a mail client: the last
    /// part of its path; for Flatpak, `--command=` and the last part of the app id.
    public var programNames: [String] {
        var names: [String] = []
        if case .flatpak(let appID, let command)? = wrappers.last {
            if let command { names.append(Self.baseName(command)) }
            names.append(String(appID.split(separator: ".").last ?? Substring(appID)))
        } else {
            names.append(Self.baseName(program))
        }
        return names.map { $0.lowercased() }
    }

    /// Splits `exec` with `g_shell_parse_argv` (GIO's own splitting, so quoting means what
    /// it means to GIO) and finds the program; `nil` when it does not split (GIO would not
    /// launch it either) or is empty.
    public init?(_ exec: String) {
        guard let words = Self.split(exec), !words.isEmpty else { return nil }
        self.words = words
        var index = 0
        var wrappers: [Wrapper] = []
        // Each turn peels one wrapper off; a Flatpak app id or an opaque wrapper ends it.
        peeling: while let (wrapper, next) = Self.unwrap(words, at: index) {
            wrappers.append(wrapper)
            switch wrapper {
            case .opaque:
                break peeling
            case .flatpak:
                index = next
                break peeling
            case .env, .tmux, .terminal:
                index = next
            }
        }
        programIndex = index
        self.wrappers = wrappers
    }

    /// The argv that runs the program with `arguments` in place of `Exec=`'s own: the
    /// wrappers' words, then the program. `nil` when a wrapper would not pass them on.
    public func command(arguments: [String]) -> [String]? {
        guard passesArguments else { return nil }
        return Array(words[...programIndex]) + arguments
    }

    /// The argv GIO would build from `Exec=` for `uris` (the desktop entry spec's field
    /// codes): `%u` the first URI, `%U` every URI as words of their own, `%c` the name,
    /// `%k` the desktop file, `%i` `--icon ICON`, `%%` a percent sign; `%f`, `%F` (local
    /// files: a `mailto:` URI is none) and the deprecated codes expand to nothing. A value
    /// is always a whole word or part of one, never split or read as shell text.
    public func expanded(uris: [String], name: String, icon: String?, desktopFile: String?) -> [String] {
        var argv: [String] = []
        for word in words {
            switch word {
            case "%U": argv += uris
            case "%u": argv += uris.prefix(1)
            case "%f", "%F": break
            case "%i": if let icon, !icon.isEmpty { argv += ["--icon", icon] }
            default:
                var result = ""
                var characters = word.makeIterator()
                while let character = characters.next() {
                    guard character == "%" else {
                        result.append(character)
                        continue
                    }
                    switch characters.next() {
                    case "%": result.append("%")
                    case "u", "U": result += uris.first ?? ""
                    case "c": result += name
                    case "k": result += desktopFile ?? ""
                    default: break
                    }
                }
                // A word that was a field code alone and expanded to nothing is dropped.
                if !result.isEmpty || word.isEmpty { argv.append(result) }
            }
        }
        return argv
    }

    /// The wrapper that starts at `words[index]`, and where the words it runs start.
    private static func unwrap(_ words: [String], at index: Int) -> (Wrapper, Int)? {
        let name = baseName(words[index])
        var next = index + 1
        func skipOptions(withValues: Set<String>) {
            while next < words.count, words[next].hasPrefix("-") {
                let option = words[next]
                next += 1
                if option == "--" { return }
                if withValues.contains(option) { next += 1 }
            }
        }
        switch name {
        case "env":
            while next < words.count {
                let word = words[next]
                if word == "-i" || word == "--ignore-environment" || word == "-" || word.hasPrefix("--unset=") {
                    next += 1
                } else if word == "-u" {
                    next += 2
                } else if word.hasPrefix("-") {
                    // `env -S` splits a string itself, and any other option is unknown here.
                    return (.opaque("env \(word)"), index)
                } else if word.contains("="), !word.hasPrefix("=") {
                    next += 1
                } else {
                    break
                }
            }
            return next < words.count ? (.env, next) : nil
        case "flatpak":
            guard next < words.count, words[next] == "run" else { return nil }
            next += 1
            var command: String?
            while next < words.count, words[next].hasPrefix("-") {
                if words[next].hasPrefix("--command=") { command = String(words[next].dropFirst("--command=".count)) }
                next += 1
            }
            guard next < words.count else { return nil }
            return (.flatpak(appID: words[next], command: command), next)
        case "tmux":
            skipOptions(withValues: ["-c", "-f", "-L", "-S", "-T"])
            let subcommands = ["new-window", "neww", "split-window", "splitw", "new-session", "new"]
            guard next < words.count, subcommands.contains(words[next]) else { return (.opaque("tmux"), index) }
            next += 1
            skipOptions(withValues: ["-c", "-e", "-F", "-n", "-t", "-l", "-s", "-x", "-y", "-f"])
            return next < words.count ? (.tmux, next) : nil
        case "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "exo-open", "xdg-open", "gio", "xdg-email":
            return (.opaque(name), index)
        default:
            guard let separator = TerminalEmulator.separator(forProgram: name), let marker = separator.first,
                  let found = words[next...].firstIndex(of: marker), found + 1 < words.count else { return nil }
            return (.terminal(name), found + 1)
        }
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Wraps `g_shell_parse_argv` (the words: transfer full, freed with `g_strfreev`).
    static func split(_ line: String) -> [String]? {
        var count: gint = 0
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var error: UnsafeMutablePointer<GError>?
        guard g_shell_parse_argv(line, &count, &argv, &error) != 0, let argv else {
            g_clear_error(&error)
            return nil
        }
        defer { g_strfreev(argv) }
        return (0..<Int(count)).compactMap { argv[$0].map { String(cString: $0) } }
    }

    /// The argv as a person reads it, each word quoted when the shell would need it
    /// (`g_shell_quote`), for `check` to show what a click runs.
    public static func readable(_ argv: [String]) -> String {
        argv.map { word in
            let plain = !word.isEmpty && word.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || "/-_.,:=%@+".utf8.contains(byte)
            }
            if plain { return word }
            return takeString(g_shell_quote(word)) ?? word
        }.joined(separator: " ")
    }
}
