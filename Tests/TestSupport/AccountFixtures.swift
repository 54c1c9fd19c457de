import Foundation

/// Writes an `[account]` group for a test server into the sandbox's config file.
@discardableResult
public func writeAccount(
    _ sandbox: Sandbox, port: Int, security: String, user: String? = nil, password: String? = nil,
    passwordCommand: String? = nil, caFile: String? = nil, host: String = "127.0.0.1", mode: Int16 = 0o600
) throws -> URL {
    var lines = ["[account]", "from=Jane Doe <jane@example.org>", "host=\(host)", "port=\(port)", "security=\(security)"]
    if let user { lines.append("user=\(user)") }
    if let password { lines.append("password=\(password)") }
    if let passwordCommand { lines.append("password-command=\(passwordCommand)") }
    if let caFile { lines.append("ca-file=\(caFile)") }
    return try sandbox.write(lines.joined(separator: "\n") + "\n", to: "home/.config/mailto-route/config", mode: mode)
}

public func jsonObject(_ text: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
        throw TestSupportError("not a JSON object: \(text)")
    }
    return object
}
