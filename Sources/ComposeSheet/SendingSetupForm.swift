import MailtoCore

/// What the sheet's "Set up sending" window holds when the person presses Set Up:
/// GTK-free, for the host to set the account up with (`SheetHost.setUpSending`).
public struct SendingSetupForm: Sendable, Equatable {
    /// `jane@example.org` or `Jane Doe <jane@example.org>`.
    public var address: String
    public var password: String
    /// The server given by hand (the form shown when none was found); `nil`: find it.
    public var server: ManualServer?

    public struct ManualServer: Sendable, Equatable {
        public var host: String
        public var port: Int?
        /// `tls` or `starttls`.
        public var security: String
        /// The login; `nil`: the address.
        public var user: String?

        public init(host: String, port: Int?, security: String, user: String?) {
            self.host = host
            self.port = port
            self.security = security
            self.user = user
        }
    }

    public init(address: String, password: String, server: ManualServer? = nil) {
        self.address = address
        self.password = password
        self.server = server
    }
}

/// How a setup ended, as the sheet shows it.
public enum SendingSetupAnswer: Sendable, Equatable {
    /// Kept: the sheet sends from `from` (`Jane Doe <jane@example.org>`) now; `summary`
    /// says where (the server and how it was found).
    case ready(from: String, summary: String)
    /// No server found answered: the sheet shows the form for the server, with `message`.
    case notFound(String)
    /// Anything else (a refused login, the keyring): `message` in the window, the form kept.
    case failed(String)
}

extension SheetHost {
    /// A host that cannot set accounts up says so.
    public func setUpSending(_ form: SendingSetupForm) -> SendingSetupAnswer {
        .failed(tr("Setting up sending is not possible here"))
    }
}
