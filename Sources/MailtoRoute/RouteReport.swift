/// What every run produces (DESIGN.md "Data model"): which path, what came of it, and the
/// details that apply. Printed as one human line, or as JSON with `--json`.
public struct RouteReport: Sendable, Equatable {
    public enum Path: String, Sendable { case direct, compose, handoff, outbox, draft }
    public enum Result: String, Sendable { case sent, queued, handedOff, saved, cancelled, failed }

    public struct Failure: Sendable, Equatable {
        public var kind: ErrorKind
        public var message: String
    }

    public struct Refusal: Sendable, Equatable {
        public var address: String
        public var reply: String
    }

    public var path: Path
    public var result: Result
    /// `host:port`.
    public var server: String?
    /// The server's last reply line.
    public var reply: String?
    public var messageId: String?
    /// Direct path: the recipients the server accepted, and those it refused with its reply.
    public var accepted: [String] = []
    public var refused: [Refusal] = []
    public var warnings: [String] = []
    public var error: Failure?

    public init(path: Path, result: Result) {
        self.path = path
        self.result = result
    }

    /// The keys of DESIGN.md in their order; `accepted`/`refused` only on the direct path.
    public var json: JSON {
        var members: [(String, JSON)] = [("path", .string(path.rawValue)), ("result", .string(result.rawValue))]
        if let server { members.append(("server", .string(server))) }
        if let reply { members.append(("reply", .string(reply))) }
        if let messageId { members.append(("messageId", .string(messageId))) }
        if path == .direct {
            members.append(("accepted", .strings(accepted)))
            members.append(("refused", .array(refused.map {
                .object([("address", .string($0.address)), ("reply", .string($0.reply))])
            })))
        }
        members.append(("warnings", .strings(warnings)))
        if let error {
            members.append(("error", .object([("kind", .string(error.kind.rawValue)), ("message", .string(error.message))])))
        }
        return .object(members)
    }

    /// For a person: what happened first, then the details, one per line.
    public var readableLines: [String] {
        var lines: [String] = []
        switch result {
        case .sent: lines.append("sent via \(server ?? "?")" + (reply.map { ": \($0)" } ?? ""))
        case .failed: lines.append("not sent" + (server.map { " via \($0)" } ?? "") + (error.map { ": \($0.message)" } ?? ""))
        default: lines.append("\(result.rawValue) (\(path.rawValue))")
        }
        if let messageId { lines.append("Message-ID: \(messageId)") }
        if !accepted.isEmpty { lines.append("accepted: \(accepted.joined(separator: ", "))") }
        for refusal in refused { lines.append("refused: \(refusal.address): \(refusal.reply)") }
        for warning in warnings { lines.append("warning: \(warning)") }
        return lines
    }
}
