import Foundation
import TestSupport

/// The test helper that asks for consent and shows reports as the router will.
let consentProbe = builtExecutable("consent-probe")

/// A URL whose subject hides a right-to-left override (U+202E) and whose body starts
/// with a terminal escape sequence.
let disguisedURL = "mailto:joe@example.org?cc=ann@example.org&bcc=bob@example.org"
    + "&subject=invoice%E2%80%AEfdp.exe&body=%1B%5B31mred%0D%0Asecond%20line"

/// A URL asking for three files, one with a space (encoded) and one with a right-to-left
/// override in its name; `attach`, `attachment` and `attachments` alike.
let requestedAttachmentsURL = "mailto:joe@example.org?subject=Report&attach=/etc/passwd"
    + "&attachment=%2Fhome%2Fjoe%2Freport%202026.pdf&attachments=/tmp/x%E2%80%AEfdp.exe"

/// Runs `consent-probe` in `sandbox` with the session bus at `bus` (none: `disabled:`),
/// without a controlling terminal (`setsid`), as a clicked link runs. One that never
/// decides is killed at the harness's patience (and has no decision to show).
func probeWithoutTerminal(
    _ arguments: [String], in sandbox: Sandbox, bus: String? = nil, extraEnvironment: [String: String] = [:]
) throws -> RunResult {
    var environment = sandbox.environment
    if let bus { environment["DBUS_SESSION_BUS_ADDRESS"] = bus }
    environment.merge(extraEnvironment) { $1 }
    return try run("/usr/bin/setsid", ["-w", consentProbe] + arguments, environment: environment)
}

/// Runs `consent-probe ask` on a pseudo-terminal, typing `answers` at its prompts.
func probeOnTerminal(
    _ arguments: [String], answers: [String], typeahead: String? = nil, in sandbox: Sandbox
) throws -> RunResult {
    try runOnTerminal([consentProbe] + arguments, answers: answers, typeahead: typeahead,
                      environment: sandbox.environment)
}

extension RunResult {
    /// What `consent-probe ask` printed after `decision: `.
    var decision: String? {
        stdout.split(whereSeparator: \.isNewline).last { $0.hasPrefix("decision: ") }
            .map { String($0.dropFirst("decision: ".count)) }
    }
}
