/// Which of the files a `mailto:` URL names (`attach=`) were handed over by a local
/// program's hand, and so are attached, and who asked for the rest (docs/design.md rule 8). A
/// web page's link reaches mailto-route through a browser, and its `attach=` may name
/// `~/.ssh/id_rsa`: such a file is only ever listed, unticked, in the sheet, and a handoff
/// never carries it.
public struct AttachmentTrust: Sendable, Equatable {
    public enum Files: Sendable, Equatable {
        /// Every file the URL names: the caller is a local program that built the URL
        /// itself (`open --local`, LibreOffice's senddoc).
        case all
        /// Only these full paths (what xdg-email's own `--attach` options named), as
        /// `readlink -f` gives them; empty: none.
        case only(Set<String>)
    }

    public var files: Files
    /// The program that asked, as a person knows it ("Chromium", "LibreOffice"); `nil`:
    /// it cannot be told (it has exited, or it is not this user's).
    public var requester: String?

    public init(files: Files, requester: String?) {
        self.files = files
        self.requester = requester
    }

    /// A URL from anywhere: a clicked link, `gio open`, `xdg-open`, the desktop file.
    public static let none = AttachmentTrust(files: .only([]), requester: nil)
    /// `open --local`: a person or a script that means it.
    public static let local = AttachmentTrust(files: .all, requester: nil)

    /// Whether the file at one of `paths` (the readings of one `attach=` value) is trusted.
    func trusts(_ paths: [String]) -> Bool {
        switch files {
        case .all: true
        case .only(let trusted): paths.contains { trusted.contains($0) || resolvedPath($0).map(trusted.contains) == true }
        }
    }

    /// The trusted file whose name xdg-email cut short in its URL: without `--utf8` it
    /// passes each `--attach` path through `iconv`, which stops at the first byte that is
    /// not UTF-8 (under the C locale, at the first that is not ASCII), so `…/caf\xE9.txt`
    /// reaches the URL as `…/caf`. A `value` that is such a cut of a trusted path that is
    /// not UTF-8 names that file; `nil` otherwise. Only a file xdg-email's own `--attach`
    /// named can be had so: the cut is matched against those, never looked up.
    func trustedPath(cutTo value: String) -> String? {
        guard case .only(let trusted) = files else { return nil }
        let cut = Array(value.utf8)
        return trusted.sorted().first { path in
            guard LocalPath.isEscaped(path) else { return false }
            let bytes = LocalPath.bytes(path)
            return cut == validUTF8Prefix(bytes) || cut == Array(bytes.prefix { $0 < 0x80 })
        }
    }

    // MARK: - Words

    /// The trust as words for `mailto-route-desktop open` (the sheet, in this process or
    /// the service's): `--local`, `--trust PATH`..., `--requested-by NAME`.
    public var words: [String] {
        var words: [String] = []
        switch files {
        case .all: words.append("--local")
        case .only(let paths): for path in paths.sorted() { words += ["--trust", path] }
        }
        if let requester { words += ["--requested-by", requester] }
        return words
    }

    /// Takes the words `words` made out of `arguments` (the rest are left in place);
    /// `nil` when one of them lacks its value.
    public static func take(from arguments: inout [String]) -> AttachmentTrust? {
        var trust = AttachmentTrust.none
        var trusted: Set<String> = []
        var all = false
        var rest: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            switch word {
            case "--local":
                all = true
            case "--trust", "--requested-by":
                index += 1
                guard index < arguments.endIndex else { return nil }
                if word == "--trust" { trusted.insert(arguments[index]) } else { trust.requester = arguments[index] }
            default:
                rest.append(word)
            }
            index += 1
        }
        trust.files = all ? .all : .only(trusted)
        arguments = rest
        return trust
    }
}

extension RouteRequest {
    /// The warnings for what `email` asked to attach and did not get: each file named,
    /// with who asked (rule 2: nothing drops silently; rule 8: why).
    static func unattachedWarnings(_ email: EmailData, requestedBy requester: String?) -> [String] {
        email.requestedAttachments.map { path in
            let asker = requester.map { tr("%@ asked for it", $0) } ?? tr("the link asked for it")
            return tr("not attached: %@ (%@; a file a link names is attached only when you tick it in the sheet)", LocalPath.display(path).visible, asker)
        }
    }
}

extension ServiceProtocol.Request {
    /// A sheet for `url` from `source`, carrying the command line's judgement of its files.
    public init(url: String?, source: Source, trust: AttachmentTrust) {
        self.init(url: url, source: source)
        self.trust = trust
    }

    /// The judgement of the URL's `attach=` files the request carries.
    public var trust: AttachmentTrust {
        get { AttachmentTrust(files: local ? .all : .only(Set(trusted)), requester: requestedBy) }
        set {
            switch newValue.files {
            case .all: (local, trusted) = (true, [])
            case .only(let paths): (local, trusted) = (false, paths.sorted())
            }
            requestedBy = newValue.requester
        }
    }
}

extension ServiceProtocol.Request {
    /// The request as `mailto-route-desktop`'s words, for the command line to run the one
    /// sheet itself when the service cannot be asked: `open URL` with the trust's words,
    /// or `compose [URL]`. `init(sheetProgramWords:)` reads them back.
    public var sheetProgramWords: [String] {
        switch source {
        case .link: ["open"] + (url.map { [$0] } ?? []) + trust.words + (arrival.map { ["--arrival", $0] } ?? [])
        case .compose: ["compose"] + (url.map { [$0] } ?? [])
        }
    }

    /// Reads `sheetProgramWords`; the mistake, in one line, when they do not read.
    public init(sheetProgramWords arguments: [String]) throws(UsageMistake) {
        var words = arguments
        var arrival: String?
        if let index = words.firstIndex(of: "--arrival") {
            guard index + 1 < words.count else { throw UsageMistake(tr("an option lacks its value")) }
            arrival = words[index + 1]
            words.removeSubrange(index...(index + 1))
        }
        let given = words.count
        guard let trust = AttachmentTrust.take(from: &words) else { throw UsageMistake(tr("an option lacks its value")) }
        guard let command = words.first, command == "open" || command == "compose" else {
            throw UsageMistake(words.first.map { tr("unknown command '%@'", $0) } ?? tr("no command given"))
        }
        let source: Source = command == "open" ? .link : .compose
        let positionals = Array(words.dropFirst())
        if let option = positionals.first(where: { $0.hasPrefix("-") }) { throw UsageMistake("unknown option '\(option)'") }
        guard positionals.count <= 1, source == .compose || positionals.count == 1 else {
            throw UsageMistake(source == .link ? tr("open takes one URL") : tr("compose takes at most one URL"))
        }
        guard given == words.count && arrival == nil || source == .link else {
            throw UsageMistake(tr("--local, --trust and --requested-by are for open"))
        }
        self.init(url: positionals.first, source: source, trust: trust)
        self.arrival = arrival
    }

    /// What is wrong with a sheet program's words.
    public struct UsageMistake: Error {
        public var message: String
        init(_ message: String) { self.message = message }
    }
}

/// The longest start of `bytes` that is UTF-8: what `iconv -t utf8` writes before it stops
/// at a byte that is not.
func validUTF8Prefix(_ bytes: [UInt8]) -> [UInt8] {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var length = 0
    while case .valid(let scalar) = parser.parseScalar(from: &iterator) { length += scalar.count }
    return Array(bytes.prefix(length))
}
