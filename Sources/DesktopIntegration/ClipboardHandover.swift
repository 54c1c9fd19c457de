internal import CGIO
import MailtoCore
#if canImport(Glibc)
import Glibc
#endif

/// Copy Address where the compositor will not take the clipboard from the desktop service:
/// a Wayland compositor sets the selection only for the client that has the keyboard focus
/// (mutter 43's `data_device_set_selection` cancels anyone else's source), and a service
/// asked from a terminal has no window at all. `wl-copy` (wl-clipboard) gets the focus with
/// a tiny surface of its own, sets the selection, and serves it from a background process
/// of its own after its first one exits; on GNOME mutter's clipboard manager then keeps the
/// text after that process too has gone.
public enum ClipboardHandover {
    /// The program that takes the text.
    public static let program = "wl-copy"

    /// How long `wl-copy` may take to get the focus and set the selection.
    public static let timeout = 10.0

    /// Hands `text` to `wl-copy` on its standard input (no argv of another program carries
    /// it: rule 4) and waits until its first process has exited, which it does once the
    /// compositor has taken the selection. Throws why not, in words that say nothing was
    /// copied: not installed, not started, failed, or not done in time. `program` is the
    /// tests' (a recorder at a path of theirs); `within`, how long it may take.
    public static func copy(_ text: String, program: String = Self.program, within timeout: Double = Self.timeout) throws(DesktopError) {
        guard DesktopEntries.findProgram(program) != nil else {
            throw DesktopError(.permanent, tr("the compositor gives the clipboard only to the window with the keyboard focus, "
                                              + "and wl-copy (wl-clipboard), which can take it, is not installed"))
        }
        let input = try filledPipe(Array(text.utf8))
        defer { close(input) }
        let pid = try start(program, input: input)
        guard let status = Launcher.waitForExit(pid, within: timeout) else {
            kill(pid, SIGKILL)
            _ = Launcher.waitForExit(pid, within: 1)
            throw DesktopError(.permanent, tr("wl-copy did not put the addresses on the clipboard within %@ s", timeout.secondsText))
        }
        guard status == 0 else {
            throw DesktopError(.permanent, tr("wl-copy could not put the addresses on the clipboard (%@)", Launcher.describe(status)))
        }
    }

    /// A pipe holding `bytes`, its writing end closed: its reading end, for `wl-copy`'s
    /// standard input. Filled before wl-copy starts, so that no write can meet a reader that
    /// has gone (SIGPIPE); non-blocking, so that a text larger than the pipe holds fails
    /// rather than waits for a reader that is not there yet.
    private static func filledPipe(_ bytes: [UInt8]) throws(DesktopError) -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw DesktopError(.permanent, tr("cannot start %@", program) + ": " + systemErrorText(errno))
        }
        let failed: Int32? = fcntl(ends[1], F_SETFL, O_NONBLOCK) == 0 ? bytes.withUnsafeBytes { writeAll(ends[1], $0) } : errno
        close(ends[1])
        if let failed {
            close(ends[0])
            throw DesktopError(.permanent, tr("cannot start %@", program) + ": " + systemErrorText(failed))
        }
        return ends[0]
    }

    /// `wl-copy` with `input` as its standard input, its output and errors on /dev/null (the
    /// background process it leaves keeps them open: a pipe would never end), and none of
    /// this program's other descriptors.
    private static func start(_ program: String, input: Int32) throws(DesktopError) -> pid_t {
        try Launcher.spawn([program, "--type", "text/plain;charset=utf-8"], environment: [:], terminal: nil,
                           input: input, discardingOutput: true)
    }
}
