import DesktopIntegration

extension Webmail {
    /// The `handler=` for a web site a browser registered for `mailto:` (HTML's
    /// `registerProtocolHandler`), whose `url` has `%s` where the escaped link goes: a known
    /// service's name when `url` is that service's compose page (Firefox's Gmail handler is
    /// Gmail's), else a template with `{mailto}` in place of `%s`. Throws, as `handler=`
    /// would, what makes it no webmail mailto-route opens (not https, no `%s`).
    public static func handler(registered url: String) throws(DesktopError) -> String {
        // A word that percent-encoding leaves as it is stands for the link.
        let marker = "MAILTOROUTELINK"
        if let known = Known.allCases.first(where: { $0.composeURL(for: marker).split(separator: marker, omittingEmptySubsequences: false)
            .joined(separator: "%s") == url }) {
            return "webmail:" + known.rawValue
        }
        let pieces = url.split(separator: "%s", omittingEmptySubsequences: false)
        guard pieces.count > 1 else {
            throw DesktopError(.configuration, tr("%@ has no %@ where the link goes", url.visible, "%s"))
        }
        let template = try Template(pieces.joined(separator: "{mailto}"))
        return "webmail:" + template.text
    }
}
