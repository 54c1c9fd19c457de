internal import CGIO

// The service protocol's values as GVariants, read and built here only: the command line's
// calls and the service's answers alike. GVariant is GLib's (linked), so none of this loads
// GIO.

extension ServiceProtocol.Request {
    /// `Compose`'s parameters, `(sa{sv})` (floating).
    var parameters: OpaquePointer {
        var options: [(String, OpaquePointer)] = [("source", VariantBuilder.string(source.rawValue))]
        if local { options.append(("local", VariantBuilder.boolean(true))) }
        if !trusted.isEmpty { options.append(("trust", VariantBuilder.strings(trusted))) }
        if let requestedBy { options.append(("requested-by", VariantBuilder.string(requestedBy))) }
        if let arrival { options.append(("arrival", VariantBuilder.string(arrival))) }
        if notify { options.append(("notify", VariantBuilder.boolean(true))) }
        if let activationToken { options.append(("activation-token", VariantBuilder.string(activationToken))) }
        if let parentWindow { options.append(("parent-window", VariantBuilder.string(parentWindow))) }
        switch plan {
        case nil: break
        case .sheet?: options.append(("plan", VariantBuilder.string("sheet")))
        case .choose(let ways)?:
            options.append(("plan", VariantBuilder.string("choose")))
            options.append(("ways", VariantBuilder.array(ways.map {
                VariantBuilder.tuple([VariantBuilder.string($0.id), VariantBuilder.string($0.name), VariantBuilder.string($0.origin),
                                      VariantBuilder.boolean($0.inTerminal), VariantBuilder.boolean($0.isSystemDefault)])
            }, of: "(sssbb)")))
        }
        return VariantBuilder.tuple([VariantBuilder.string(url ?? ""), VariantBuilder.dictionary(options)])
    }

    /// Reads `Compose`'s parameters (a reference the caller keeps); `nil` when they are
    /// not `(sa{sv})` or name a source there is none of. Options it does not know are
    /// left alone, for a newer caller.
    public init?(parameters: OpaquePointer) {
        let values = Variant(borrowing: parameters)
        guard values.isOfType("(sa{sv})"), let url = values.child(0).string else { return nil }
        let options = values.child(1)
        guard let source = Source(rawValue: options.lookup("source")?.string ?? "link") else { return nil }
        self.init(url: url.isEmpty ? nil : url, source: source)
        local = options.lookup("local")?.boolean ?? false
        trusted = options.lookup("trust")?.strings ?? []
        requestedBy = options.lookup("requested-by")?.string
        arrival = options.lookup("arrival")?.string
        notify = options.lookup("notify")?.boolean ?? false
        activationToken = options.lookup("activation-token")?.string.flatMap { $0.isEmpty ? nil : $0 }
        parentWindow = options.lookup("parent-window")?.string.flatMap { $0.isEmpty ? nil : $0 }
        switch options.lookup("plan")?.string {
        case "sheet": plan = .sheet
        case "choose":
            let ways = options.lookup("ways")
            guard let ways, ways.isOfType("a(sssbb)") else { return nil }
            plan = .choose((0..<ways.count).map { index in
                let way = ways.child(index)
                return ServiceProtocol.OfferedWay(id: way.child(0).string ?? "", name: way.child(1).string ?? "",
                                                  origin: way.child(2).string ?? "", inTerminal: way.child(3).boolean ?? false,
                                                  isSystemDefault: way.child(4).boolean ?? false)
            })
        default: plan = nil
        }
    }
}

extension ServiceProtocol.Answer {
    /// `Finished`'s body for `request`, `(siss)` (floating).
    public func signal(request: String) -> OpaquePointer {
        VariantBuilder.tuple([VariantBuilder.string(request), VariantBuilder.int32(status),
                              VariantBuilder.string(report ?? ""), VariantBuilder.string(message)])
    }

    /// Reads a `Finished`'s body: the request it answers and the outcome.
    static func read(_ values: Variant) -> (request: String, outcome: ServiceProtocol.Answer)? {
        guard values.isOfType("(siss)"), let request = values.child(0).string else { return nil }
        let report = values.child(2).string ?? ""
        let outcome = ServiceProtocol.Answer(status: g_variant_get_int32(values.child(1).pointer),
                                              report: report.isEmpty ? nil : report, message: values.child(3).string ?? "")
        return (request, outcome)
    }
}

/// `org.freedesktop.impl.portal.Email.ComposeEmail`'s arguments, as xdg-desktop-portal
/// passes them: `attachments` are host paths the frontend made from descriptors the
/// application handed it, so they are the application's own (trusted, shown ticked).
public struct PortalEmailRequest: Sendable {
    public var handle: String
    public var appID: String
    public var parentWindow: String
    public var to: [String]
    public var cc: [String]
    public var bcc: [String]
    public var subject: String?
    public var body: String?
    public var attachments: [String]
    public var activationToken: String?

    /// A request as an application asks it (`appID` empty: unknown).
    public init(appID: String, to: [String] = [], cc: [String] = [], bcc: [String] = [], subject: String? = nil,
                body: String? = nil, attachments: [String] = [], handle: String = "", parentWindow: String = "",
                activationToken: String? = nil) {
        self.handle = handle
        self.appID = appID
        self.parentWindow = parentWindow
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
        self.attachments = attachments
        self.activationToken = activationToken
    }

    /// Reads `ComposeEmail`'s parameters, `(ossa{sv})` (a reference the caller keeps);
    /// `nil` when they are not of that type. The frontend passes `address` (one) and
    /// `addresses`; an option of another type than the portal's is taken as absent.
    public init?(parameters: OpaquePointer) {
        let values = Variant(borrowing: parameters)
        guard values.isOfType("(ossa{sv})") else { return nil }
        let options = values.child(3)
        func strings(_ key: String) -> [String] {
            guard let value = options.lookup(key) else { return [] }
            return value.string.map { [$0] } ?? value.strings
        }
        handle = values.child(0).objectPath ?? ""
        appID = values.child(1).string ?? ""
        parentWindow = values.child(2).string ?? ""
        to = strings("address") + strings("addresses")
        cc = strings("cc")
        bcc = strings("bcc")
        subject = options.lookup("subject")?.string
        body = options.lookup("body")?.string
        attachments = strings("attachments")
        activationToken = options.lookup("activation_token")?.string
    }

    /// The portal's reply, `(ua{sv})` with no results (floating).
    public static func reply(_ response: UInt32) -> OpaquePointer {
        VariantBuilder.tuple([VariantBuilder.uint32(response), VariantBuilder.dictionary([])])
    }
}

/// A one-string tuple, `(s)` (floating): `Compose`'s reply.
public func serviceReply(_ request: String) -> OpaquePointer {
    VariantBuilder.tuple([VariantBuilder.string(request)])
}
