import Foundation
import TestSupport

/// Runs `mailto-route send ARGUMENTS --handoff` with no controlling terminal (`setsid`):
/// a terminal program then goes to a terminal emulator, as for a clicked link, also when
/// the tests themselves run on a terminal.
func sendHandoff(_ arguments: [String], in sandbox: Sandbox, _ extra: [String: String] = [:]) throws -> RunResult {
    try run("/usr/bin/setsid", ["-w", mailtoRouteBinary, "send"] + arguments + ["--handoff"],
            environment: sandbox.environment(extra), timeout: 30)
}

/// Runs a judge (`xdg-mime`, `gio`, `desktop-file-validate`) in `sandbox`.
func judge(_ program: String, _ arguments: [String], in sandbox: Sandbox, _ extra: [String: String] = [:]) throws -> RunResult {
    try run(program, arguments, environment: sandbox.environment(extra), timeout: 30)
}
