import DesktopIntegration

// A webmail service offered in the account it opens: "Open in Gmail (jane@gmail.com)" for
// each account that belongs to Gmail, not one anonymous Gmail that opens whichever account
// the browser shows first (issue 34).

extension Session {
    /// `ways` with each known webmail service that accounts belong to offered once per such
    /// account (`webmail:gmail:jane@gmail.com`), where the anonymous one stood; a service
    /// with no account stays as it was. A way `handler=` names is offered once.
    func withWebmailAccounts(_ ways: [Way]) -> [Way] {
        var offered: [Way.Kind] = []
        return ways.flatMap { way -> [Way] in
            guard case .webmail(let text) = way.kind, let known = Webmail.Known(rawValue: text) else { return [way] }
            let addresses = webmailAccounts(of: known)
            guard !addresses.isEmpty else { return [way] }
            return addresses.map { address in
                let service = Webmail.Service.account(known, address)
                return Way(kind: .webmail(service.rawValue), name: service.name, origin: way.origin)
            }
        }.filter { way in
            guard !offered.contains(way.kind) else { return false }
            offered.append(way.kind)
            return true
        }
    }

    /// The browser a handoff to `handler` opens webmail in: for a way of one account
    /// (`webmail:gmail:jane@gmail.com`) whose group names one (`webmail-browser=`,
    /// `webmail-browser-profile=`), that one, so that the work account opens in the work
    /// profile; else `[route]`'s.
    func webmailBrowser(for handler: String?) -> WebmailBrowser {
        guard let handler, handler.hasPrefix(Way.webmailPrefix),
              let address = (try? Webmail.Service(handler: String(handler.dropFirst(Way.webmailPrefix.count))))?.account,
              let browser = (try? account(sendingFrom: address)?.account.get())?.webmailBrowser
        else { return routeSettings.webmailBrowser }
        return browser
    }

    /// The addresses of the usable accounts that belong to `known` (`Webmail.Known.serving`),
    /// in the accounts' order, each once (the files' and GNOME Online Accounts' may both
    /// have one).
    func webmailAccounts(of known: Webmail.Known) -> [String] {
        var seen = Set<String>()
        return accounts.compactMap { setup -> String? in
            guard case .success(let account) = setup.account else { return nil }
            let providerType: String? = if case .onlineAccounts(let online) = setup.origin { online.providerType } else { nil }
            let address = account.from.address
            guard Webmail.Known.serving(address: address, providerType: providerType) == known,
                  seen.insert(address.lowercased()).inserted else { return nil }
            return address
        }
    }
}
