public import MailtoCore
import MainLoop

/// What a compose sheet shows when it opens: GTK-free, so that the desktop program (and
/// the desktop service) builds it from a link, the command line or the Email portal.
public struct SheetContent: Sendable {
    /// The account the message goes out from, as a person reads it (`Jane Doe <jane@…>`);
    /// shown, never editable. With more than one of `accounts`, the From chooser shows them
    /// instead.
    public var from: String?
    /// Every account that can send, for the From chooser (a drop-down when there is more
    /// than one), and the one it shows first (the one last used, else the default).
    public var accounts: [FromAccount] = []
    public var fromIndex = 0
    /// A way is remembered for clicked links (the chooser's Always): the menu offers to ask
    /// again (`SheetHost.forgetWay`).
    public var remembersWay = false
    /// Why Send cannot work now (no account, a broken one); `nil`: it can.
    public var sendUnavailable: String?
    /// No account is set up: the sheet offers "Set up sending" (`SheetHost.setUpSending`).
    public var offersSetup = false
    /// The person chose "Set up sending…" (the chooser): the form opens at once, over the
    /// sheet, rather than waiting for its button. Only with `offersSetup`.
    public var opensSetup = false
    /// GNOME Online Accounts is on the bus: the setup offers it too.
    public var onlineAccountsAvailable = false
    /// To, Cc, Bcc, Subject, body and the other header fields. `attachments` are trusted
    /// (a local program or the user handed them over) and shown ticked;
    /// `requestedAttachments` are what a link asked for, shown apart and unticked
    /// (docs/design.md rule 8).
    public var email: EmailData
    /// The mail program's name, for the "Open in NAME" button; `nil`: no button.
    public var mailProgramName: String?
    /// The application that asked for the message (the Email portal's caller), named in
    /// the title; `nil` for a link or the command line.
    public var requestingApplication: String?
    /// The requesting application's window, which the sheet is kept above (ParentWindow).
    public var parentWindow: ParentWindow?
    /// The program that asked for `email.requestedAttachments` ("Chromium"), named above
    /// them; `nil`: the link.
    public var attachmentsRequestedBy: String?
    /// Lines shown at the top of the sheet before anything else (a message recovered
    /// from a sheet that ended unexpectedly, say).
    public var notices: [String]
    /// `email` is a message recovered from a sheet that ended unexpectedly: the user's
    /// writing from the start (closing the sheet asks before it goes), and written to this
    /// sheet's recovery file at once (`RecoveryStore.carried`).
    public var isRecovered = false
    /// The account's signature (`signature=`), put below a new message after `-- `, where
    /// the user can edit it; `nil`: none.
    public var signature: String?
    /// The addresses sent to before, most used first: what To, Cc and Bcc offer as one types.
    public var recentRecipients: [AddressSuggestion] = []
    /// The desktop's address books, asked as one types (off the main loop); `nil`: none.
    public var lookUpContacts: (@Sendable (String) -> [AddressSuggestion])?

    public init(
        from: String?, sendUnavailable: String? = nil, email: EmailData, mailProgramName: String? = nil,
        requestingApplication: String? = nil, notices: [String] = []
    ) {
        self.from = from
        self.sendUnavailable = sendUnavailable
        self.email = email
        self.mailProgramName = mailProgramName
        self.requestingApplication = requestingApplication
        self.notices = notices
    }
}

/// One account the From chooser offers.
public struct FromAccount: Sendable, Equatable {
    /// What `SheetHost.perform` gets back: the account's name.
    public var name: String
    /// `Jane Doe <jane@example.org>`.
    public var readable: String
    /// Where it comes from (`GNOME Online Accounts (Google)`, a file), its description.
    public var origin: String

    public init(name: String, readable: String, origin: String) {
        self.name = name
        self.readable = readable
        self.origin = origin
    }
}

/// One person the address fields offer: a name (when known) and the address.
public struct AddressSuggestion: Sendable, Equatable {
    public var name: String?
    public var address: String
    /// From the history of addresses sent to (and so can be forgotten), not an address book.
    public var fromHistory: Bool

    public init(name: String?, address: String, fromHistory: Bool) {
        self.name = name
        self.address = address
        self.fromHistory = fromHistory
    }

    /// `Name <address>` (the name quoted where RFC 5322 wants it), or the address alone.
    public var readable: String {
        name.map { DisplayName.mailbox($0, address) } ?? address
    }

    /// The suggestions a person typing `prefix` may mean (`addressMatches`), in order.
    static func matching(_ prefix: String, in suggestions: [AddressSuggestion], limit: Int = 8) -> [AddressSuggestion] {
        Array(suggestions.filter { addressMatches(prefix, address: $0.address, name: $0.name) }.prefix(limit))
    }
}

/// What the user asked the sheet to do with the message it holds.
public enum SheetAction: Sendable, Hashable {
    case send
    case saveDraft
    /// "Open in NAME": the message as the sheet holds it now, to the mail program.
    case handOff
    /// Send Later: the message waits in the outbox until the chosen time, and the sheet
    /// closes (docs/outbox.md, "Held messages").
    case sendLater(SendLaterChoice)
    /// The Undo time of a held Send is over: the message goes now.
    case releaseHold
}

/// When Send Later sends: the choices of the Send button's menu.
public enum SendLaterChoice: Sendable, Hashable {
    case inOneHour
    /// 8:00 tomorrow, local time.
    case tomorrowMorning
    /// The next time the local clock shows this: today, or tomorrow when it has passed.
    case at(hour: Int, minute: Int, second: Int)

    /// Reads `HH:MM` or `HH:MM:SS` (24-hour clock), as typed in the sheet's "Send at"
    /// question; `nil` for anything else.
    public init?(time text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCIIDigitCharacter) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        let second = parts.count == 3 ? Int(parts[2]) ?? 60 : 0
        guard (0...59).contains(second) else { return nil }
        self = .at(hour: hour, minute: minute, second: second)
    }

    /// The moment this choice means, from `now` (seconds since the epoch) and a function
    /// that makes a local date and time into one (`days` after today's date).
    public func moment(now: Int64, local: (_ days: Int, _ hour: Int, _ minute: Int, _ second: Int) -> Int64?) -> Int64? {
        switch self {
        case .inOneHour: return now + 3_600
        case .tomorrowMorning: return local(1, 8, 0, 0)
        case .at(let hour, let minute, let second):
            guard let today = local(0, hour, minute, second) else { return nil }
            return today > now ? today : local(1, hour, minute, second)
        }
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}

/// How an action ended, as the sheet needs to know it.
public enum SheetActionResult: Sendable, Equatable {
    /// Done (sent, queued, saved, handed off): the sheet closes.
    case finished
    /// Not done (a permanent failure): the sheet stays open with `message` shown in it and
    /// the text untouched, so that the user can fix it and try again, or save it.
    case failed(String)
    /// Send is held in the outbox for `seconds` (`undo-send=`): the sheet offers Undo
    /// meanwhile, then asks for `releaseHold`.
    case held(seconds: Int)
}

/// The program that shows a sheet and does what its user chooses. The sheet calls it once
/// per user action; it never decides a route itself.
public protocol SheetHost: AnyObject, Sendable {
    /// Does `action` with `email`, sent from the account `account` names (the From chooser's;
    /// `nil`: the default). Called on a worker thread, never the GTK main thread (an SMTP send
    /// blocks); its result is brought back to the main loop.
    func perform(_ action: SheetAction, with email: EmailData, from account: String?) -> SheetActionResult
    /// The user cancelled: nothing was edited, or the edits were discarded. Main thread.
    @GLibMainActor func cancelled()
    /// The sheet is gone (after `finished` or `cancelled`). Main thread.
    @GLibMainActor func sheetClosed()
    /// The user forgot `address` in the completion's list: it is not offered again. Main thread.
    @GLibMainActor func forgetRecipient(_ address: String)
    /// Sets up a sending account from the "Set up sending" window: finds the server, tests
    /// it, keeps it; from then on Send goes through it. Worker thread, as `perform`.
    func setUpSending(_ form: SendingSetupForm) -> SendingSetupAnswer

    /// "Ask How to Send Each Time": the way the chooser's Always kept is forgotten. Main
    /// thread; `nil` when it was, else why not.
    @GLibMainActor func forgetWay() -> String?

    /// Undo of the Send held now (`held`): the message leaves the outbox unsent. `nil`:
    /// undone; else why not (its sending began). Main thread.
    @GLibMainActor func undoHold() -> String?
    /// The sheet is about to run a Send (`perform` with `send` or `releaseHold`): a Stop
    /// from now until the next `willSend` is this Send's. Main thread.
    @GLibMainActor func willSend()
    /// Stop: the Send the sheet started last ends, if the server cannot have the message
    /// yet; its `perform` then returns `.failed` saying that nothing was sent, and the
    /// message is the sheet's again. `false`: too late (the end of the message went out,
    /// or the Send is over). Main thread.
    @GLibMainActor func stopSending() -> Bool
    /// The sheet's window was closed while its Send is held: the message still goes at
    /// the end of the Undo time, and the host offers Undo where the user can still reach
    /// it (a notification). Main thread.
    @GLibMainActor func heldWindowClosed()
}
