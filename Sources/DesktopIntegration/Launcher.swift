internal import CGIO
import MailtoCore
#if canImport(Glibc)
import Glibc
#endif

/// Starting programs: through GIO for a desktop entry (its `Exec=`, D-Bus activation,
/// terminal, launch context), or from an argv array for a client's own command line.
/// Never through a shell: no value can become a command.
public enum Launcher {
    /// How long a launch may take: GIO first connects to the session bus (`g_bus_get`,
    /// which has no deadline of its own), then starts the program, or for a D-Bus-activatable
    /// one waits for its `Activate`/`Open` call (GDBus's default of 25 s, which this outlasts).
    public static let launchTimeout: Double = 30

    /// Launches `app` with `uris`: wraps `g_app_info_launch_uris_async` with a
    /// `GAppLaunchContext` carrying `environment`, on a main context of its own (not the
    /// global default: on a worker thread of a GTK program, the compose sheet's, that one
    /// belongs to the main loop, and waiting on it would wait for ever), until
    /// `g_app_info_launch_uris_finish` has said how it went (for a D-Bus-activatable program,
    /// that is when the bus has answered) or `timeout` seconds have passed. Then the launch
    /// is cancelled and reported as failed (transient), since whether the program started
    /// cannot be known: GIO goes on to start a program that is not D-Bus-activatable without
    /// the bus, but its answer is by then only "cancelled". A message is never lost so: the
    /// caller keeps it (a draft) although the program may have it too.
    public static func launch(
        _ app: AppInfo, uris: [String], environment: [String: String] = [:], timeout: Double = launchTimeout
    ) throws(DesktopError) {
        let gio = app.gio
        // No context without an environment to carry: a plain one adds nothing (the program
        // gets this process's environment either way), and when a launch over the bus fails,
        // GLib 2.74 asserts that such a context has a startup id, on standard error.
        let context = environment.isEmpty ? nil : try LaunchContext(environment: environment, gio: gio)
        let list = uriList(uris)
        defer { g_list_free_full(list, g_free) }
        var failure: String?
        let call = AsyncCall { source, result in
            var error: UnsafeMutablePointer<GError>?
            if let source, gio.pointee.g_app_info_launch_uris_finish(OpaquePointer(source), result, &error) == 0 {
                failure = takeError(error, .permanent, tr("launch failed")).message
            }
        }
        let cancellable = Cancellable(gio: gio)
        let waited = MainContext()
        let finished = waited.run {
            gio.pointee.g_app_info_launch_uris_async(app.pointer, list, context?.pointer, cancellable.pointer,
                                                     AsyncCall.ready, call.userData)
            return waited.wait(for: call, cancelling: cancellable, seconds: timeout)
        }
        guard finished else { throw notSeenToStart(app, within: timeout) }
        if let error = failure {
            throw DesktopError(.permanent, tr("cannot start %@ (%@): %@", app.name, app.id ?? app.executable, error))
        }
    }

    /// How long a started mail program is watched for failing at once: a program that
    /// exits with an error within this time did not get the message (a launcher that
    /// cannot start it, a wrapper that refused its options). A program that exits 0 ends
    /// the watch at once, so a launcher that hands over to a running instance (or
    /// daemonises) and exits costs no more than its own run; only one that keeps running
    /// is watched the whole time, which delays mailto-route's report, never the program.
    public static let earlyFailureSeconds = 2.0

    /// Starts `app` as `plan` says, with `environment` added to its own (the loop guard),
    /// and throws when it failed to start or failed at once (see `earlyFailureSeconds`).
    /// `terminal` is the descriptor of mailto-route's own terminal, which a `.foreground`
    /// plan runs on.
    public static func start(
        _ plan: LaunchPlan, of app: AppInfo, terminal: Int32?, environment: [String: String]
    ) throws(DesktopError) {
        let name = "\(app.name) (\(app.id ?? app.executable))"
        switch plan {
        case .gio(let uris):
            for pid in try launchWithPIDs(app, uris: uris, environment: environment) {
                try watch(pid, name: name)
            }
        case .detached(let argv):
            try watch(try spawn(argv, environment: environment, terminal: nil), name: name)
        case .foreground(let argv):
            precondition(terminal != nil, "a foreground plan needs the terminal it runs on")
            let pid = try spawn(argv, environment: environment, terminal: terminal)
            let status = waitInForeground(pid)
            if status != 0 {
                throw DesktopError(.permanent, tr("%@ ended with %@ on this terminal", name, describe(status)))
            }
        }
    }

    /// Wraps `g_desktop_app_info_launch_uris_as_manager` with `G_SPAWN_DO_NOT_REAP_CHILD`
    /// and a `GAppLaunchContext` carrying `environment`: GIO expands `Exec=`, and each
    /// process it starts is returned, for the caller to reap.
    ///
    /// A D-Bus-activatable program (`AppInfo.isDBusActivatable`) has no process of ours
    /// to watch: GIO calls its `org.freedesktop.Application.Open` over the session bus, and
    /// its synchronous launch sends that call without waiting for the answer, so a program
    /// the bus cannot start, or one that refuses, would look handed off. Such a program is
    /// launched with `launch` instead, which waits (at most `timeout` seconds) for the
    /// bus's answer and throws what it says.
    ///
    /// The call first connects to the session bus (`g_bus_get_sync`, with no deadline of
    /// its own): that connection is made ahead (`SessionBusAhead`) and waited for at most
    /// `timeout` seconds, as `launch` waits, and with the same answer when the time is up.
    /// The asynchronous launch cannot be used here: it spawns without
    /// `G_SPAWN_DO_NOT_REAP_CHILD`, so GLib double-forks and the pid it reports is not our
    /// child, whose exit status `watch` then cannot see.
    static func launchWithPIDs(
        _ app: AppInfo, uris: [String], environment: [String: String], timeout: Double = launchTimeout
    ) throws(DesktopError) -> [pid_t] {
        guard let desktop = app.desktop else {
            try launch(app, uris: uris, environment: environment, timeout: timeout)
            return []
        }
        // Held until GIO has a reference of its own (its call takes one).
        guard let bus = SessionBusAhead.shared.take(within: timeout) else { throw notSeenToStart(app, within: timeout) }
        if bus.isConnected, app.isDBusActivatable {
            // The bus starts the program in its own activation environment: `environment`
            // would not reach it.
            try withExtendedLifetime(bus) { () throws(DesktopError) in
                try launch(app, uris: uris, timeout: timeout)
            }
            return []
        }
        let context = try LaunchContext(environment: environment, gio: app.gio)
        let list = uriList(uris)
        defer { g_list_free_full(list, g_free) }
        let started = StartedProcesses()
        let flags = GSpawnFlags(G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
        var error: UnsafeMutablePointer<GError>?
        let launched = withExtendedLifetime((started, bus)) {
            app.gio.pointee.g_desktop_app_info_launch_uris_as_manager(
                desktop, list, context.pointer, flags, nil, nil, StartedProcesses.callback,
                Unmanaged.passUnretained(started).toOpaque(), &error)
        }
        guard launched != 0 else {
            // GIO may have started some before failing: they are not left as zombies.
            for pid in started.pids { try? watch(pid, name: "") }
            throw DesktopError(.permanent, tr("cannot start %@ (%@): %@", app.name, app.id ?? app.executable, takeErrorMessage(error)))
        }
        return started.pids
    }

    /// Makes GIO's connection to the session bus ahead of a `.gio` launch (see
    /// `SessionBusAhead`), while the rest of the handoff is prepared.
    public static func connectSessionBusAhead() {
        SessionBusAhead.shared.start()
    }

    /// A launch that did not end within `timeout` seconds: transient, so the router keeps
    /// the message (a draft), although the program may get it too.
    private static func notSeenToStart(_ app: AppInfo, within timeout: Double) -> DesktopError {
        DesktopError(.transient, tr("%@ (%@) was not seen to start within %@ s (the session bus or the program did not answer)",
                                    app.name, app.id ?? app.executable, timeout.secondsText))
    }

    /// Starts `argv` (the program is looked up in `PATH`): wraps `g_spawn_async_with_fds`
    /// with `G_SPAWN_DO_NOT_REAP_CHILD`, with the environment of a `GAppLaunchContext`
    /// carrying `environment`; on `terminal` (its standard input, output and error) when
    /// given, else with mailto-route's own, or `input` as its standard input and its output
    /// and errors on /dev/null (`discardingOutput`). GLib closes this program's other
    /// descriptors in the child. Returns the child, for the caller to reap.
    static func spawn(
        _ argv: [String], environment: [String: String], terminal: Int32?, input: Int32? = nil, discardingOutput: Bool = false
    ) throws(DesktopError) -> pid_t {
        precondition(!argv.isEmpty, "spawn needs a program")
        let gio = try GIOLibrary.load()
        let context = try LaunchContext(environment: environment, gio: gio)
        // transfer full: a NULL-terminated copy of the environment with our additions.
        let environ = gio.pointee.g_app_launch_context_get_environment(context.pointer)
        defer { g_strfreev(environ) }
        var cArgv: [UnsafeMutablePointer<gchar>?] = argv.map { g_strdup($0) } + [nil]
        defer { for argument in cArgv { g_free(argument) } }
        var error: UnsafeMutablePointer<GError>?
        var pid: GPid = 0
        var flags = G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue
        if discardingOutput { flags |= G_SPAWN_STDOUT_TO_DEV_NULL.rawValue | G_SPAWN_STDERR_TO_DEV_NULL.rawValue }
        let descriptor = terminal ?? -1
        if g_spawn_async_with_fds(nil, &cArgv, environ, GSpawnFlags(flags), nil, nil, &pid, input ?? descriptor,
                                  discardingOutput ? -1 : descriptor, discardingOutput ? -1 : descriptor, &error) == 0 {
            throw takeError(error, .permanent, tr("cannot start %@", argv[0]))
        }
        return pid
    }

    /// Watches `pid` for at most `earlyFailureSeconds`: returns when it exits 0 or is
    /// still running then (it has the message), throws when it exited otherwise.
    static func watch(_ pid: pid_t, name: String) throws(DesktopError) {
        guard let status = waitForExit(pid, within: earlyFailureSeconds), status != 0 else { return }
        throw DesktopError(.permanent, tr("%@ failed at once (%@): the mail program did not get the message", name, describe(status)))
    }

    /// Waits at most `seconds` for `pid` to exit: its wait status, or `nil` when it still
    /// runs then (or was reaped elsewhere: SIGCHLD ignored by whoever started us). Waits in
    /// `poll` on a pidfd, which the kernel wakes the moment the program ends: a sleep
    /// between `waitpid(WNOHANG)` calls would cost a whole timer tick (4 ms on a kernel
    /// without high-resolution timers) after a launcher that hands over and exits. Without
    /// pidfds (Linux before 5.3), it polls every 10 ms.
    static func waitForExit(_ pid: pid_t, within seconds: Double) -> Int32? {
        let started = MonotonicClock.seconds
        let exitSignal = mr_pidfd_open(pid)
        defer { if exitSignal >= 0 { close(exitSignal) } }
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return status }
            if result < 0, errno != EINTR { return nil }
            let remaining = seconds - (MonotonicClock.seconds - started)
            if remaining <= 0 { return nil }
            if exitSignal >= 0 {
                var ended = pollfd(fd: exitSignal, events: Int16(POLLIN), revents: 0)
                _ = poll(&ended, 1, Int32((remaining * 1000).rounded(.up)))
            } else {
                usleep(10_000)
            }
        }
    }

    /// Waits for `pid`, which runs in the foreground of mailto-route's terminal, ignoring
    /// SIGINT and SIGQUIT meanwhile, as `system(3)` does: Ctrl-C there is the program's,
    /// and must not end mailto-route before it has said what came of the handoff.
    /// Returns the wait status.
    static func waitInForeground(_ pid: pid_t) -> Int32 {
        let interrupt = signal(SIGINT, SIG_IGN)
        let quit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, interrupt)
            signal(SIGQUIT, quit)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 0 }
        }
        return status
    }

    /// A wait status as a person reads it. WIFEXITED and WEXITSTATUS by hand: the macros
    /// do not import.
    static func describe(_ status: Int32) -> String {
        status & 0x7F == 0 ? tr("exit status %@", (status >> 8) & 0xFF) : tr("signal %@", status & 0x7F)
    }

    /// Where a handoff's program runs, decided before anything runs: the same for `check`
    /// (which names it) and for the click (which runs it).
    ///
    /// A `Terminal=true` program runs on mailto-route's own terminal when it has one
    /// (`onThisTerminal`), else in `emulator`; without either it cannot run, and the error
    /// says so. Any other program runs through GIO with `uris` (its `Exec=`), or as
    /// `command`, a client command line, when given.
    public static func plan(
        _ app: AppInfo, command: [String]?, uris: [String], onThisTerminal: Bool, emulator: TerminalEmulator?,
        terminalVariable: String?
    ) throws(DesktopError) -> LaunchPlan {
        guard app.needsTerminal else {
            return command.map(LaunchPlan.detached) ?? .gio(uris: uris)
        }
        let argv: [String]
        if let command {
            argv = command
        } else {
            guard let line = app.execLine else {
                throw DesktopError(.permanent, tr("cannot read the Exec= line of %@ (%@)", app.name, app.id ?? app.executable))
            }
            argv = line.expanded(uris: uris, name: app.name, icon: app.desktopEntryString("Icon"), desktopFile: app.fileName)
        }
        if onThisTerminal { return .foreground(argv) }
        guard let emulator else {
            throw DesktopError(.permanent, tr(
                "%@ (%@) must run in a terminal (Terminal=true), and there is none to run it in: "
                    + "mailto-route has no terminal of its own (as for a clicked link), %@",
                app.name, app.id ?? app.executable, TerminalEmulator.searched(terminalVariable: terminalVariable)))
        }
        return .detached(emulator.command(running: argv))
    }
}

/// How a handoff starts its program (see `Launcher.plan`).
public enum LaunchPlan: Sendable, Equatable {
    /// Through GIO: the entry's `Exec=` with these URIs (D-Bus activation, launch context).
    case gio(uris: [String])
    /// This argv, not waited for beyond `Launcher.earlyFailureSeconds`: a client command
    /// line, or a terminal program in a terminal emulator.
    case detached([String])
    /// This argv on mailto-route's own terminal, in the foreground, waited for.
    case foreground([String])
}

/// `uris` as the `GList` of `g_strdup`ed strings GIO's launch calls take (transfer full:
/// free it with `g_list_free_full(list, g_free)`).
private func uriList(_ uris: [String]) -> UnsafeMutablePointer<GList>? {
    var list: UnsafeMutablePointer<GList>?
    for uri in uris.reversed() {
        list = g_list_prepend(list, g_strdup(uri))
    }
    return list
}

/// The processes one `g_desktop_app_info_launch_uris_as_manager` call started, heard
/// through its `GDesktopAppLaunchCallback`.
private final class StartedProcesses {
    var pids: [pid_t] = []

    /// The callback (a top-level non-capturing closure, as C needs); GIO calls it during the
    /// launch, on the launching thread, which holds the object meanwhile.
    static let callback: GDesktopAppLaunchCallback = { _, pid, userData in
        guard let userData else { return }
        Unmanaged<StartedProcesses>.fromOpaque(userData).takeUnretainedValue().pids.append(pid)
    }
}

/// The one Swift owner of a `GAppLaunchContext` (`g_app_launch_context_new`, transfer full).
final class LaunchContext {
    let pointer: UnsafeMutablePointer<GAppLaunchContext>
    private let gio: UnsafePointer<mr_gio_api>

    /// Wraps `g_app_launch_context_setenv` for each pair.
    init(environment: [String: String], gio: UnsafePointer<mr_gio_api>) throws(DesktopError) {
        guard let made = gio.pointee.g_app_launch_context_new() else {
            throw DesktopError(.transient, tr("g_app_launch_context_new failed (out of memory?)"))
        }
        self.gio = gio
        pointer = made
        for (name, value) in environment {
            gio.pointee.g_app_launch_context_setenv(pointer, name, value)
        }
    }

    deinit {
        gio.pointee.g_object_unref(pointer)
    }
}
