import DesktopIntegration
import Foundation
import Testing
import TestSupport

/// The handing over of Copy Address to `wl-copy` (`ClipboardHandover`), in-process, with
/// stand-ins for wl-copy at paths of the test's own: the text arrives whole on standard
/// input and in no argument, a failure or no program is an error that says nothing was
/// copied, and a program that leaves a background process behind, as wl-copy does, is done
/// when its first process exits. The real wl-copy under a real compositor: WaylandCopyTests.
@Suite struct ClipboardHandoverTests {
    let sandbox: Sandbox
    let record: String

    init() throws {
        sandbox = try Sandbox()
        record = sandbox.recordsDirectory.appendingPathComponent("wl-copy").path
    }

    @Test func theTextGoesOnStandardInputAndInNoArgument() throws {
        let program = try sandbox.installScript("wl-copy-recorder", """
            printf '%s\\n' "$@" > '\(record).argv'; cat > '\(record)'
            """)
        let text = "åsa@example.org, Joe <joe@bücher.example>"
        try ClipboardHandover.copy(text, program: program)
        #expect(sandbox.contents(URL(fileURLWithPath: record)) == text)
        #expect(sandbox.contents(URL(fileURLWithPath: record + ".argv")) == "--type\ntext/plain;charset=utf-8\n")
    }

    @Test func aFailureSaysNothingWasCopied() throws {
        let program = try sandbox.installScript("wl-copy-failing", "cat > /dev/null; exit 3")
        do {
            try ClipboardHandover.copy("ann@example.com", program: program)
            Issue.record("copied by a program that failed")
        } catch {
            #expect(error.message == "wl-copy could not put the addresses on the clipboard (exit status 3)")
        }
    }

    @Test func noProgramSaysWhyInWords() throws {
        do {
            try ClipboardHandover.copy("ann@example.com", program: sandbox.root.appendingPathComponent("no-wl-copy").path)
            Issue.record("copied with no program")
        } catch {
            #expect(error.message.hasPrefix("the compositor gives the clipboard only to the window with the keyboard focus"))
        }
    }

    /// As wl-copy: its first process exits once the selection is set, and a background one
    /// that keeps serving it holds standard output and error open; the handover returns at
    /// the first's exit, not when the background one ends (here only when the test stops it).
    @Test func aBackgroundProcessLeftBehindDoesNotHoldTheCopy() throws {
        let program = try sandbox.installScript("wl-copy-daemon", """
            cat > '\(record)'; sh -c 'echo $$ > "$0.pid.new" && mv "$0.pid.new" "$0.pid"; exec sleep 300' '\(record)' & exit 0
            """)
        // The pid file appears whole (renamed into place): `echo > file` makes it empty first,
        // and a test that read it then took pid 0 (a loaded full run failed so).
        try ClipboardHandover.copy("ann@example.com", program: program)
        try waitUntil("the background process wrote its pid") { FileManager.default.fileExists(atPath: record + ".pid") }
        let pid = Int32(sandbox.contents(URL(fileURLWithPath: record + ".pid"))?.split(separator: "\n").first ?? "") ?? 0
        #expect(pid > 0 && kill(pid, 0) == 0, "the background process is still serving")
        if pid > 0 { kill(pid, SIGKILL) }
    }
}
