internal import CCurl

extension SMTPSubmission {
    /// The SASL mechanisms a bearer token may go with, for `CURLOPT_LOGIN_OPTIONS`: each
    /// `AUTH=` adds one to libcurl's preferred set, and with this set no other is tried.
    static let bearerMechanisms = "AUTH=XOAUTH2;AUTH=OAUTHBEARER"

    /// The login, when the server has a user: a password (AUTH PLAIN or LOGIN, as the
    /// server offers), or a bearer token (SASL XOAUTH2 or OAUTHBEARER).
    ///
    /// A bearer token is given with `CURLOPT_XOAUTH2_BEARER`, and the mechanisms are pinned
    /// with `CURLOPT_LOGIN_OPTIONS`: without the pin, libcurl 7.88 logs in with PLAIN and
    /// an empty password where the server offers no bearer mechanism. `CURLOPT_HTTPAUTH`
    /// is left alone: set to `CURLAUTH_BEARER` it undoes the pin (measured on Debian's
    /// libcurl 7.88.1). Where both are offered libcurl prefers OAUTHBEARER; servers that
    /// take bearer tokens (Gmail, Outlook) take the one they offer.
    static func configureLogin(_ easy: CurlEasy, server: SMTPServer) throws(SMTPError) {
        guard let user = server.user else { return }
        try easy.set(CURLOPT_USERNAME, user)
        if let token = server.bearerToken {
            try easy.set(CURLOPT_XOAUTH2_BEARER, token)
            try easy.set(CURLOPT_LOGIN_OPTIONS, bearerMechanisms)
        } else {
            try easy.set(CURLOPT_PASSWORD, server.password ?? "")
        }
        // The mechanism's initial response with AUTH: one round trip less.
        try easy.set(CURLOPT_SASL_IR, 1)
    }
}
