import Testing
@testable import ComposeSheet

/// The spelling without a window: which words are asked about, and what enchant-2 says of
/// them with the system's dictionaries (Debian's hunspell-en-us and hunspell-de-de).
@Suite struct SpellingTests {
    @Test func wordsAreRunsOfLettersNotAddressesLinksNumbersOrQuotes() {
        let text = "Teh e-mail isn't 2nd.\n> Quoted wrng text\nSee https://exampel.org and bob@exampel.org, B2B ok"
        #expect(Words.find(in: text).map(\.text) == ["Teh", "e-mail", "isn't", "See", "and", "ok"])
        // Offsets count Unicode scalars, as GtkTextBuffer does: "Grüße" is five.
        let german = Words.find(in: "Grüße\nTeh")
        #expect(german.map(\.start) == [0, 6])
        #expect(german.map(\.length) == [5, 3])
    }

    @Test func misspeltWordsAndTheirSuggestionsInEnglish() throws {
        let checker = try #require(SpellChecker(language: "en_US"), "hunspell-en-us is installed by scripts/install-deps test")
        #expect(checker.language == "en_US")
        #expect(checker.isCorrect("quick") && checker.isCorrect("isn't"))
        #expect(!checker.isCorrect("Teh") && !checker.isCorrect("jumsp"))
        #expect(checker.suggestions(for: "teh").first == "the")
        // A capital at the start of a sentence: the common word first, its capital kept.
        #expect(checker.suggestions(for: "Teh").first == "The")
        #expect(checker.suggestions(for: "Teh").count <= 6)
        // A name keeps its own suggestions beside those of the small-letter word.
        #expect(checker.suggestions(for: "Londn").contains("London"))
        #expect(checker.languages().contains("de_DE"))
    }

    @Test func anotherLanguageIsAnotherDictionary() throws {
        let checker = try #require(SpellChecker(language: "en_US"))
        #expect(!checker.isCorrect("Straße"))
        #expect(checker.setLanguage("de_DE"))
        #expect(checker.isCorrect("Straße") && !checker.isCorrect("quick"))
        // No such dictionary: the one in use stays.
        #expect(!checker.setLanguage("xx_XX"))
        #expect(checker.language == "de_DE")
    }
}
