import MailtoRoute
import Testing

/// The one sheet's words, as the command line writes them and the sheet program reads
/// them back (both through `ServiceProtocol.Request`).
@Suite struct SheetProgramWordsTests {
    @Test func aRequestComesBackFromItsWords() throws {
        var link = ServiceProtocol.Request(url: "mailto:joe@example.com?attach=/tmp/a", source: .link,
                                           trust: AttachmentTrust(files: .only(["/tmp/a", "/tmp/b c"]), requester: "LibreOffice"))
        link.notify = false
        #expect(try ServiceProtocol.Request(sheetProgramWords: link.sheetProgramWords) == link)
        let local = ServiceProtocol.Request(url: "mailto:joe@example.com", source: .link, trust: .local)
        #expect(try ServiceProtocol.Request(sheetProgramWords: local.sheetProgramWords) == local)
        let compose = ServiceProtocol.Request(url: nil, source: .compose)
        #expect(compose.sheetProgramWords == ["compose"])
        #expect(try ServiceProtocol.Request(sheetProgramWords: compose.sheetProgramWords) == compose)
    }

    @Test func wordsThatDoNotReadSayWhy() {
        #expect(throws: ServiceProtocol.Request.UsageMistake.self) { try ServiceProtocol.Request(sheetProgramWords: ["compose", "--local"]) }
        #expect(throws: ServiceProtocol.Request.UsageMistake.self) { try ServiceProtocol.Request(sheetProgramWords: ["open"]) }
        #expect(throws: ServiceProtocol.Request.UsageMistake.self) { try ServiceProtocol.Request(sheetProgramWords: ["open", "u", "--trust"]) }
        #expect(throws: ServiceProtocol.Request.UsageMistake.self) { try ServiceProtocol.Request(sheetProgramWords: ["send", "u"]) }
    }
}
