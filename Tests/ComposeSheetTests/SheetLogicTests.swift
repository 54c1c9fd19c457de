import Foundation
import MailtoCore
import Testing
import TestSupport
@testable import ComposeSheet

/// What the sheet decides without a window: the address check beside each field, what a
/// file a link asks for may be, the body's line breaks and hidden characters, and the
/// recovery file's round trip.
@Suite struct SheetLogicTests {
    @Test func addressFieldTakesNamesAndCommasAndNamesTheFirstProblem() {
        let list = AddressList("Joe Bloggs <joe@example.com>, ann@example.org , , bad, also bad@")
        #expect(list.addresses == ["joe@example.com", "ann@example.org"])
        #expect(list.problem == "not an address (no local@domain): bad")
        #expect(list.names == ["joe@example.com": "Joe Bloggs"])
        let quoted = AddressList("\"Berg, Asa\" <asa@example.org>, Jürgen Groß <juergen@example.org>")
        #expect(quoted.addresses == ["asa@example.org", "juergen@example.org"])
        #expect(quoted.names == ["asa@example.org": "Berg, Asa", "juergen@example.org": "Jürgen Groß"])
        #expect(AddressList.text(quoted.addresses, names: quoted.names)
            == "\"Berg, Asa\" <asa@example.org>, Jürgen Groß <juergen@example.org>")
        #expect(AddressList("").addresses.isEmpty)
        #expect(AddressList("").problem == nil)
    }

    /// Send Later's own time: `HH:MM` or `HH:MM:SS`, the next time the clock shows it.
    @Test func sendLaterTimeIsTodayOrTomorrowWhenItHasPassed() {
        #expect(SendLaterChoice(time: "14:30") == .at(hour: 14, minute: 30, second: 0))
        #expect(SendLaterChoice(time: "9:05:07") == .at(hour: 9, minute: 5, second: 7))
        for bad in ["", "24:00", "12:60", "12", "12:3a", "12:30:61", "1:2:3:4", "-1:30", "+1:30"] {
            #expect(SendLaterChoice(time: bad) == nil, "\(bad)")
        }
        // A day of 86,400 s from 0; "now" is 10:00 on day 0.
        let local = { (days: Int, hour: Int, minute: Int, second: Int) -> Int64? in
            Int64(days * 86_400 + hour * 3_600 + minute * 60 + second)
        }
        let now: Int64 = 36_000
        let today = SendLaterChoice.at(hour: 14, minute: 30, second: 0).moment(now: now, local: local)
        let tomorrow = SendLaterChoice.at(hour: 9, minute: 0, second: 0).moment(now: now, local: local)
        let morning = SendLaterChoice.tomorrowMorning.moment(now: now, local: local)
        let hour = SendLaterChoice.inOneHour.moment(now: now, local: local)
        #expect(today == Int64(52_200))
        #expect(tomorrow == Int64(118_800), "9:00 has passed at 10:00: tomorrow")
        #expect(morning == Int64(115_200))
        #expect(hour == now + 3_600)
    }

    @Test func fileALinkAsksForIsLookedAtBeforeItCanBeTicked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let readable = directory.appendingPathComponent("ok.txt")
        try Data("12345".utf8).write(to: readable)
        #expect(FileFacts(path: readable.path) == FileFacts(size: 5))
        #expect(FileFacts(path: directory.path).problem == "is a folder, not a file")
        #expect(FileFacts(path: directory.appendingPathComponent("gone").path).problem == "does not exist")
        #expect(FileFacts(path: "relative.txt").problem == "not a full path")
        #expect(FileFacts(path: "/dev/null").problem == "is not a regular file")
    }

    @Test func sizesReadAsGNOMEShowsThem() {
        #expect(readableSize(1) == "1 byte")
        #expect(readableSize(999) == "999 bytes")
        #expect(readableSize(12_345) == "12.3 kB")
        #expect(readableSize(10_000_000) == "10.0 MB")
    }

    @Test func bodyLineBreaksAreCRLFForSendingAndLFForEditing() {
        #expect(MessageText.forEditing("a\r\nb\rc\n") == "a\nb\nc\n")
        #expect(MessageText.forSending("a\nb") == "a\r\nb")
        #expect(MessageText.forSending(MessageText.forEditing("x\r\ny")) == "x\r\ny")
    }

    @Test func hiddenCharactersAreCountedAndTheirLineShown() throws {
        #expect(MessageText.hiddenCharacters(in: "plain\ttext\nlines") == nil)
        let found = try #require(MessageText.hiddenCharacters(in: "one\ntwo \u{202E}exe.txt\u{200B}\nthree"))
        #expect(found.count == 2)
        #expect(found.line == 2)
        #expect(found.shown == "two \\u{202E}exe.txt\\u{200B}")
    }

    /// A 10 MB body is read whole. How fast is not a unit test's question (a loaded machine
    /// made a 3 s limit fail): the sheet's 10 MB test shows the window stays responsive.
    @Test func tenMegabyteBodyIsScannedAndConvertedWhole() {
        let body = String(repeating: "All work and no play makes Jack a dull boy.\n", count: 240_000)
        #expect(MessageText.hiddenCharacters(in: body) == nil)
        #expect(MessageText.hiddenCharacters(in: body + "\u{202E}")?.line == 240_001)
        #expect(MessageText.forSending(body).utf8.count == body.utf8.count + 240_000)
    }

    @Test func recoveryFileGivesBackWhatWasTyped() throws {
        var email = EmailData(to: ["joe@example.com"], cc: ["ann@example.org"], subject: "Über = ?x", body: "line\r\n& more")
        email.attachments = [.file("/tmp/a b%.txt")]
        email.requestedAttachments = ["/etc/passwd"]
        let back = try #require(RecoveryFormat.read(RecoveryFormat.write(email)))
        #expect(back.to == email.to)
        #expect(back.cc == email.cc)
        #expect(back.subject == email.subject)
        #expect(back.body == email.body)
        #expect(back.attachments == email.attachments)
        #expect(back.requestedAttachments == ["/etc/passwd"])
        #expect(RecoveryFormat.read(Array("something else\nmailto:x@y.z\n".utf8)) == nil)
    }

    @Test func leftoverIsTakenOnceAndALiveSheetsFileIsLeftAlone() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let store = RecoveryStore(stateDirectory: state.path)
        let live = try #require(store.create())
        live.write(EmailData(to: ["live@example.com"]))
        let gone = try #require(store.create())
        gone.write(EmailData(to: ["gone@example.com"]))
        // A sheet that died: its lock is released, its file stays.
        gone.releaseLockAsACrashWould()
        let taken = try leftovers(in: store)
        #expect(taken.map(\.email.to) == [["gone@example.com"]])
        #expect(store.takeLeftovers().isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: live.path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        live.remove()
        #expect(!FileManager.default.fileExists(atPath: live.path))
    }

    /// Rule 3: a recovered message's file stays until the message is kept elsewhere. Let go
    /// of unkept (the start ended first), the next start finds it again; carried into a new
    /// sheet, it goes once that sheet's own recovery file holds the message.
    @Test func aRecoveredMessageStaysUntilItIsKeptElsewhere() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        var store = RecoveryStore(stateDirectory: state.path)
        let gone = try #require(store.create())
        gone.write(EmailData(to: ["gone@example.com"], body: "Half written"))
        gone.releaseLockAsACrashWould()
        #expect(try leftovers(in: store).map(\.email.to) == [["gone@example.com"]])
        let again = try leftovers(in: store)
        #expect(again.map(\.email.body) == ["Half written"], "not kept elsewhere: found again")
        store.carried = again.first
        let sheet = try #require(store.create())
        #expect(FileManager.default.fileExists(atPath: gone.path), "kept until the new sheet's file has it")
        sheet.write(try #require(again.first).email)
        #expect(!FileManager.default.fileExists(atPath: gone.path))
        #expect(FileManager.default.fileExists(atPath: sheet.path))
        sheet.remove()
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path + "/recovery").isEmpty)
    }
}

/// The leftovers of `store`, once there are any. The lock of a sheet that died is free once no
/// process holds its open file description, and a child that this test process forks
/// meanwhile (another test's program) holds a copy until it executes: the start then finds
/// the message held, as a sheet that is still open, and the next start takes it.
private func leftovers(in store: RecoveryStore) throws -> [RecoveredMessage] {
    var taken: [RecoveredMessage] = []
    try waitUntil("the dead sheet's message is free to take") {
        taken = store.takeLeftovers()
        return !taken.isEmpty
    }
    return taken
}
