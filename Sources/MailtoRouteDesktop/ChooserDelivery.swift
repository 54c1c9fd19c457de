import ComposeSheet
import MailtoCore
import MIMEMessage
import MailtoRoute

// The chooser's side in the desktop program (the first click asks once): whether a link
// starts with it (the plan's `.choose`, the same decision as the command line's and
// check's), what it shows (`Session.ways`), and what the person's answer becomes, through
// the run's Session. The service and the one-sheet program carry the outcome out alike.

enum ChooserDelivery {
    /// What the person's answer comes to.
    enum Next {
        /// Open the compose sheet (an account was chosen: it is the From shown first;
        /// `setUp`: "Set up sending…", whose form opens over the sheet at once).
        case sheet(setUp: Bool)
        /// Route this request (a handoff to the program or service chosen).
        case route(RouteRequest)
        /// Nothing is done with the message: the report says so.
        case cancelled(RouteReport)
    }

    /// Whether `email`'s request from `source` starts with the chooser: a link whose plan
    /// with a sheet is `.choose`.
    static func wantsChooser(_ email: EmailData?, source: SheetSource, session: Session) -> Bool {
        // The Email portal's requests decide in DesktopService.composeEmail, with their app id.
        guard source == .link, let email else { return false }
        var request = RouteRequest(email: email, source: .link)
        request.sheet = true
        return session.plan(request) == .choose
    }

    /// The chooser for `email`: each of `ways` as a person reads it. `application`: the
    /// Email portal's caller (its app id; Always is kept for it, and only when it is known).
    static func content(for email: EmailData, ways: [Way], session: Session, source: SheetSource = .link,
                        application: String? = nil) -> ChooserContent {
        // A file under the home as ~/…: the chooser is narrow.
        let home = session.paths.home.hasSuffix("/") ? session.paths.home : session.paths.home + "/"
        let shown = ways.map { way in
            switch way.kind {
            case .account:
                ChooserContent.Way(title: tr("Send from %@", way.name),
                                   detail: tr("Write it in the compose sheet, then send (%@)",
                                              way.origin.hasPrefix(home) ? "~/" + way.origin.dropFirst(home.count) : way.origin),
                                   canRemember: true)
            case .program:
                ChooserContent.Way(title: tr("Open in %@", way.name), detail: tr("The mail program (%@)", way.origin), canRemember: true)
            case .webmail:
                ChooserContent.Way(title: tr("Open in %@", way.name), detail: tr("Its web page, in %@", way.origin), canRemember: true)
            case .copyAddress:
                ChooserContent.Way(title: tr("Copy Address"), detail: tr("Put the addresses on the clipboard, to paste them "
                                                                         + "where you write: nothing is sent"), canRemember: true)
            case .setUp:
                ChooserContent.Way(title: tr("Set up sending…"), detail: tr("Send from your own address: add an account"),
                                   canRemember: false)
            }
        }
        let recipients = email.to.map { Mailbox.readable($0, name: email.names[$0]) }
        var content = ChooserContent(ways: shown, recipients: recipients.joined(separator: ", "), subject: email.subject,
                                     canRemember: session.canRememberWay && (source != .portal || application != nil))
        content.requestingApplication = source == .portal ? application ?? "An application" : nil
        content.preselected = Way.preferred(in: ways) ?? 0
        return content
    }

    /// What `answer` to the chooser of `ways` comes to for `email`: **Always** is written to
    /// the config file first (`Session.rememberWay`; a file that cannot be written is said in
    /// the report, and the choice still goes this once); an account becomes the From shown
    /// first; a program or service, a handoff to it; Copy Address, the addresses on the
    /// clipboard. `requestedBy` names the program that
    /// asked for the files the link lists (rule 8: named in the report of what is not carried).
    /// For the Email portal (`source`), Always is kept for `application`, the caller's app id.
    static func outcome(of answer: ChooserAnswer, ways: [Way], email: EmailData, session: Session,
                        requestedBy: String? = nil, source: SheetSource = .link, application: String? = nil) -> Next {
        guard case .way(let index, let always) = answer, ways.indices.contains(index) else {
            let report = RouteReport(path: .compose, result: .cancelled)
            session.log(report, source: source.routeSource)
            return .cancelled(report)
        }
        let way = ways[index]
        var warnings: [String] = []
        if always {
            do throws(ConfigurationError) {
                try session.rememberWay(way, forApplication: source == .portal ? application : nil)
            } catch {
                warnings.append(tr("not remembered for the next link: %@", error.message))
            }
        }
        switch way.kind {
        case .account(let name):
            session.rememberLastUsed(name)
            return .sheet(setUp: false)
        case .program, .webmail:
            var request = RouteRequest(email: email, source: source.routeSource, forcedPath: .handoff)
            request.handler = way.handler
            request.requestingApplication = application
            request.warnings = warnings
            request.attachmentsRequestedBy = requestedBy
            return .route(request)
        case .copyAddress:
            // Through the service's Copy, as the command line's: the service holds the
            // clipboard, also when this is the one-sheet program, which ends at once.
            var request = RouteRequest(email: email, source: source.routeSource, forcedPath: .copy)
            request.warnings = warnings
            return .route(request)
        case .setUp:
            return SetUpSending.outcome(for: email, session: session)
        }
    }
}

/// "Set up sending…" in the chooser, the one place it calls into setting up an account: the
/// compose sheet with no account opens with its setup form over it, which takes it from
/// there (the sheet then sends from the account set up).
enum SetUpSending {
    static func outcome(for email: EmailData, session: Session) -> ChooserDelivery.Next {
        .sheet(setUp: true)
    }
}
