import MailtoRoute
import Testing

/// The way the chooser has chosen when it opens (Return takes it): the one most people mean.
@Suite struct PreferredWayTests {
    let account = Way(kind: .account("default"), name: "Jane Doe <jane@example.org>", origin: "~/.config/mailto-route/config")
    let neomutt = Way(kind: .program("neomutt.desktop"), name: "NeoMutt", origin: "neomutt.desktop", inTerminal: true)
    let defaultNeomutt = Way(kind: .program("neomutt.desktop"), name: "NeoMutt", origin: "neomutt.desktop", inTerminal: true,
                             isSystemDefault: true)
    let thunderbird = Way(kind: .program("thunderbird.desktop"), name: "Thunderbird", origin: "thunderbird.desktop")
    let evolution = Way(kind: .program("evolution.desktop"), name: "Evolution", origin: "evolution.desktop", isSystemDefault: true)
    let gmail = Way(kind: .webmail("gmail"), name: "Gmail", origin: "Firefox")
    let setUp = Way(kind: .setUp, name: "", origin: "")

    @Test func anAccountComesFirstWhereverItIsListed() {
        #expect(Way.preferred(in: [thunderbird, gmail, account]) == 2)
    }

    @Test func withoutAnAccountTheDesktopsDefaultProgramIfItHasAWindow() {
        #expect(Way.preferred(in: [thunderbird, evolution, gmail, setUp]) == 1)
    }

    /// A terminal program GIO lists, or even names as the default, is not what a click on
    /// a desktop most likely means: a graphical program, else webmail, is.
    @Test func neverATerminalProgramWhileAWindowedOneOrWebmailCanGo() {
        #expect(Way.preferred(in: [neomutt, thunderbird, setUp]) == 1)
        #expect(Way.preferred(in: [defaultNeomutt, gmail, setUp]) == 1)
        #expect(Way.preferred(in: [defaultNeomutt, setUp]) == 0)
    }

    @Test func setUpSendingOnlyWhenNothingElseCanGo() {
        #expect(Way.preferred(in: [setUp]) == 0)
        #expect(Way.preferred(in: []) == nil)
    }
}
