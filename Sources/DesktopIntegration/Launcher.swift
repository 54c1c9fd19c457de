internal import CGIO

/// Starting programs: through GIO for a desktop entry (its `Exec=`, D-Bus activation,
/// terminal, launch context), or from an argv array for a client's own command line.
/// Never through a shell: no value can become a command.
public enum Launcher {
    /// Launches `app` with `uris`: wraps `g_app_info_launch_uris_async` with a
    /// `GAppLaunchContext` carrying `environment`, and iterates a main context of its own
    /// (the thread default while the call is made, so its result arrives there) until
    /// `g_app_info_launch_uris_finish` has said how it went (for a D-Bus-activatable
    /// program, that is when the bus has answered). Not the global default context: on a
    /// worker thread of a GTK program (the compose sheet's) that context belongs to the
    /// main loop, and waiting on it would wait for ever.
    public static func launch(
        _ app: AppInfo, uris: [String], environment: [String: String] = [:]
    ) throws(DesktopError) {
        let gio = app.gio
        let context = try LaunchContext(environment: environment, gio: gio)
        var list: UnsafeMutablePointer<GList>?
        for uri in uris.reversed() {
            list = g_list_prepend(list, g_strdup(uri))
        }
        defer { g_list_free_full(list, g_free) }
        var failure: String?
        let call = AsyncCall { source, result in
            var error: UnsafeMutablePointer<GError>?
            if let source, gio.g_app_info_launch_uris_finish(OpaquePointer(source), result, &error) == 0 {
                failure = takeError(error, .permanent, "launch failed").message
            }
        }
        let waiting = MainContext()
        waiting.run {
            gio.g_app_info_launch_uris_async(app.pointer, list, context.pointer, nil, AsyncCall.ready, call.userData)
            while !call.finished {
                g_main_context_iteration(waiting.pointer, 1)
            }
        }
        if let error = failure {
            throw DesktopError(.permanent, "cannot start \(app.name) (\(app.id ?? app.executable)): \(error)")
        }
    }

    /// Starts `argv` (the program is looked up in `PATH`): wraps `g_spawn_async`, with the
    /// environment of a `GAppLaunchContext` carrying `environment`. When `inTerminal`,
    /// the argv is run inside the first terminal emulator found, as GIO does for
    /// `Terminal=true` entries. Does not wait for the program.
    public static func spawn(
        _ argv: [String], inTerminal: Bool = false, environment: [String: String] = [:]
    ) throws(DesktopError) {
        precondition(!argv.isEmpty, "spawn needs a program")
        var command = argv
        if inTerminal {
            guard let terminal = terminalPrefix() else {
                throw DesktopError(.permanent, "\(argv[0]) must run in a terminal, and no terminal emulator was found")
            }
            command = terminal + argv
        }
        let gio = try GIOLibrary.load()
        let context = try LaunchContext(environment: environment, gio: gio)
        // transfer full: a NULL-terminated copy of the environment with our additions.
        let environ = gio.g_app_launch_context_get_environment(context.pointer)
        defer { g_strfreev(environ) }
        var cArgv: [UnsafeMutablePointer<gchar>?] = command.map { g_strdup($0) } + [nil]
        defer { for argument in cArgv { g_free(argument) } }
        var error: UnsafeMutablePointer<GError>?
        // Without G_SPAWN_DO_NOT_REAP_CHILD, GLib double-forks: the mail program is never
        // our zombie and outlives us.
        if g_spawn_async(nil, &cArgv, environ, G_SPAWN_SEARCH_PATH, nil, nil, nil, &error) == 0 {
            throw takeError(error, .permanent, "cannot start \(command[0])")
        }
    }

    /// The terminal emulators GIO itself tries for `Terminal=true`, Debian's alternative
    /// first, with the word that ends their own options.
    private static func terminalPrefix() -> [String]? {
        let known: [(String, [String])] = [
            ("x-terminal-emulator", ["-e"]), ("gnome-terminal", ["--"]), ("konsole", ["-e"]),
            ("xfce4-terminal", ["-x"]), ("xterm", ["-e"]),
        ]
        for (name, separator) in known {
            if let path = takeString(g_find_program_in_path(name)) { return [path] + separator }
        }
        return nil
    }
}

/// The one Swift owner of a `GAppLaunchContext` (`g_app_launch_context_new`, transfer full).
final class LaunchContext {
    let pointer: UnsafeMutablePointer<GAppLaunchContext>
    private let gio: mr_gio_api

    /// Wraps `g_app_launch_context_setenv` for each pair.
    init(environment: [String: String], gio: mr_gio_api) throws(DesktopError) {
        guard let made = gio.g_app_launch_context_new() else {
            throw DesktopError(.transient, "g_app_launch_context_new failed (out of memory?)")
        }
        self.gio = gio
        pointer = made
        for (name, value) in environment {
            gio.g_app_launch_context_setenv(pointer, name, value)
        }
    }

    deinit {
        gio.g_object_unref(pointer)
    }
}
