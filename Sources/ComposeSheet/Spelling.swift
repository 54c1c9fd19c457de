#if canImport(Glibc)
import Glibc
#endif
internal import CEnchant

/// The message's spelling, through enchant-2 (the dictionaries the system has: hunspell's,
/// aspell's): which words are misspelt, and what to put instead. GTK-free; the sheet marks
/// the words (ComposeSheet+Spelling.swift).
///
/// One owner of the broker and its dictionary (docs/style.md habit 2): wraps
/// `enchant_broker_init` (transfer full, freed with `enchant_broker_free` in `deinit`) and
/// `enchant_broker_request_dict` (owned by the broker, given back with
/// `enchant_broker_free_dict`).
final class SpellChecker {
    private let broker: OpaquePointer
    private var dictionary: OpaquePointer?
    /// The dictionary's language tag (`en_US`); `nil`: none could be had for the language asked.
    private(set) var language: String?

    /// A checker for `language` (`de_DE`), or for the user's locale when `nil`; `nil` when
    /// enchant has no dictionary at all for it.
    init?(language: String? = nil) {
        guard let broker = enchant_broker_init() else { return nil }
        self.broker = broker
        guard setLanguage(language ?? Self.localeLanguage() ?? "en_US") else { return nil }
    }

    deinit {
        if let dictionary { enchant_broker_free_dict(broker, dictionary) }
        enchant_broker_free(broker)
    }

    /// Changes the dictionary; `false` (and the old one kept) when there is none for `tag`.
    @discardableResult
    func setLanguage(_ tag: String) -> Bool {
        // enchant falls back from de_DE to de by itself only where a provider does: ask both.
        let base = tag.split(separator: "_").first.map(String.init) ?? tag
        for candidate in [tag, base] where enchant_broker_dict_exists(broker, candidate) != 0 {
            guard let found = enchant_broker_request_dict(broker, candidate) else { continue }
            if let dictionary { enchant_broker_free_dict(broker, dictionary) }
            dictionary = found
            language = candidate
            return true
        }
        return false
    }

    /// Whether `word` is spelt right: wraps `enchant_dict_check` (0: right).
    func isCorrect(_ word: String) -> Bool {
        guard let dictionary else { return true }
        return word.withCString { enchant_dict_check(dictionary, $0, -1) } == 0
    }

    /// What to put instead of `word`, best first, at most `limit`.
    ///
    /// A word with a capital first letter and small ones after it is most often a common
    /// word at the start of a sentence: hunspell, asked about "Teh", first offers what keeps
    /// the capital where it is ("Te", "Th", "Eh", ...) and "The" only 13th, while for "teh"
    /// "the" comes first. So such a word is asked about in small letters too, and those
    /// suggestions, given their capital back, come first; the word's own follow.
    func suggestions(for word: String, limit: Int = 6) -> [String] {
        var found: [String] = []
        if let first = word.unicodeScalars.first, first.properties.isUppercase,
           word.unicodeScalars.dropFirst().allSatisfy({ !$0.properties.isUppercase }) {
            found = rawSuggestions(for: word.lowercased()).map { $0.prefix(1).uppercased() + $0.dropFirst() }
        }
        for suggestion in rawSuggestions(for: word) where !found.contains(suggestion) { found.append(suggestion) }
        return Array(found.filter { $0 != word }.prefix(limit))
    }

    /// Wraps `enchant_dict_suggest` (the list freed with `enchant_dict_free_string_list`).
    private func rawSuggestions(for word: String) -> [String] {
        guard let dictionary else { return [] }
        var count = 0
        guard let list = word.withCString({ enchant_dict_suggest(dictionary, $0, -1, &count) }) else { return [] }
        defer { enchant_dict_free_string_list(dictionary, list) }
        return (0..<count).compactMap { list[$0].map { String(cString: $0) } }
    }

    /// Every language enchant has a dictionary for: wraps `enchant_broker_list_dicts`.
    func languages() -> [String] {
        final class Found { var tags: Set<String> = [] }
        let found = Found()
        enchant_broker_list_dicts(broker, { tag, _, _, _, data in
            guard let tag, let data else { return }
            Unmanaged<Found>.fromOpaque(data).takeUnretainedValue().tags.insert(String(cString: tag))
        }, Unmanaged.passUnretained(found).toOpaque())
        return found.tags.sorted()
    }

    /// The language of the user's messages, as the locale says (`LC_ALL`, `LC_MESSAGES`,
    /// `LANG`: `de_DE.UTF-8` is `de_DE`); `nil` for the C and POSIX locales.
    static func localeLanguage() -> String? {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { continue }
            let tag = String(value.prefix { $0 != "." && $0 != "@" })
            return tag == "C" || tag == "POSIX" ? nil : tag
        }
        return nil
    }
}

/// The words of a text that a spell checker is asked about, as Unicode scalar offsets (what
/// GtkTextBuffer's iterators count): runs of letters with an apostrophe or hyphen inside;
/// not an address, a web address, a word with digits, or a quoted line of an earlier message.
enum Words {
    struct Word: Equatable {
        var start: Int
        var length: Int
        var text: String
    }

    static func find(in text: String) -> [Word] {
        var words: [Word] = []
        var offset = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let scalars = Array(line.unicodeScalars)
            defer { offset += scalars.count + 1 }
            // A quote of an earlier message is the other person's spelling.
            if scalars.first == ">" { continue }
            var index = 0
            while index < scalars.count {
                guard scalars[index].properties.isAlphabetic else { index += 1; continue }
                // Letters after a digit ("2nd", "b2b") are not a word of a dictionary.
                if index > 0, scalars[index - 1].properties.numericType != nil {
                    while index < scalars.count, isWordScalar(scalars, index) { index += 1 }
                    continue
                }
                // The token around the letters: up to white space.
                var tokenStart = index
                while tokenStart > 0, !scalars[tokenStart - 1].properties.isWhitespace { tokenStart -= 1 }
                var tokenEnd = index
                while tokenEnd < scalars.count, !scalars[tokenEnd].properties.isWhitespace { tokenEnd += 1 }
                let token = String(String.UnicodeScalarView(scalars[tokenStart..<tokenEnd]))
                if token.contains("@") || token.contains("://") || token.hasPrefix("www.") {
                    index = tokenEnd
                    continue
                }
                var end = index
                while end < scalars.count, isWordScalar(scalars, end) { end += 1 }
                let word = scalars[index..<end]
                if !word.contains(where: { $0.properties.numericType != nil }) {
                    words.append(Word(start: offset + index, length: end - index, text: String(String.UnicodeScalarView(word))))
                }
                index = end
            }
        }
        return words
    }

    /// A letter or digit, or an apostrophe or hyphen between letters ("don't", "e-mail").
    private static func isWordScalar(_ scalars: [Unicode.Scalar], _ index: Int) -> Bool {
        let scalar = scalars[index]
        if scalar.properties.isAlphabetic || scalar.properties.numericType != nil { return true }
        guard ["'", "’", "-"].contains(scalar), index > 0, index + 1 < scalars.count else { return false }
        return scalars[index - 1].properties.isAlphabetic && scalars[index + 1].properties.isAlphabetic
    }
}
