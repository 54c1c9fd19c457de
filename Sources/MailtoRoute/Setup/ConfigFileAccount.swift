#if canImport(Glibc)
import Glibc
#endif
import DesktopIntegration
import MIMEMessage
import SMTPTransport

/// Adds an account group to the user's config file, as GLib writes key files: the
/// comments, the other groups and their order are kept (`KeyFile`, loaded with its
/// comments), and the file's permission bits too (a new file is the user's alone).
enum ConfigFileAccount {
    /// Writes `[account NAME]` with `from=`, `host=`, `port=`, `security=` and `user=` to
    /// `path`, and `imap-host=`, `imap-port=`, `imap-security=` (and `imap-user=` where it is
    /// not `user=`) for `imap`, and a comment above it that says where the password is.
    /// Throws when the group exists or the file cannot be read or written.
    static func add(name: String, from: Mailbox, server: SMTPServer, imap: SMTPServer? = nil, to path: String) throws(DesktopError) {
        let file = try KeyFile.load(path) ?? KeyFile()
        let group = name == "default" ? "account" : "account \(name)"
        if file.groups.contains(group) {
            throw DesktopError(.configuration, tr("[%@] is in %@ already", group, path))
        }
        let user = server.user ?? from.address
        file.set(fromText(from), group, "from")
        file.set(server.host, group, "host")
        file.set(String(server.port), group, "port")
        file.set(server.security.rawValue, group, "security")
        file.set(user, group, "user")
        if let imap {
            file.set(imap.host, group, "imap-host")
            file.set(String(imap.port), group, "imap-port")
            file.set(imap.security.rawValue, group, "imap-security")
            if let imapUser = imap.user, imapUser != user { file.set(imapUser, group, "imap-user") }
        }
        // g_key_file_set_comment puts a "#" before each line itself.
        file.setComment("""
             Set up by mailto-route (account add, or the sheet's "Set up sending").
             The password is in the keyring, under host=\(server.host) service=smtp user=\(user)
             (secret-tool lookup host \(server.host) service smtp user \(user)).
            """, group: group)
        var status = stat()
        let mode = stat(path, &status) == 0 ? Int32(status.st_mode & 0o777) : 0o600
        try file.save(to: path, mode: mode)
    }

    /// `Name <address>`, the name quoted where RFC 5322 wants it (`Mailbox(parsing:)`
    /// reads it back), or the bare address.
    static func fromText(_ mailbox: Mailbox) -> String {
        guard let name = mailbox.displayName, !name.isEmpty else { return mailbox.address }
        let special = "()<>[]:;@\\,.\""
        if name.contains(where: { special.contains($0) }) {
            let escaped = name.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            return "\"\(escaped)\" <\(mailbox.address)>"
        }
        return "\(name) <\(mailbox.address)>"
    }
}
