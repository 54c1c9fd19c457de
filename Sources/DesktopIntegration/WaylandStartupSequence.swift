#if canImport(Glibc)
import Glibc
#endif

/// The Wayland side of `StartupSequence`: a click's activation token (xdg-activation-v1,
/// which GIO puts in `DESKTOP_STARTUP_ID` and xdg-desktop-portal in `XDG_ACTIVATION_TOKEN`)
/// begins a startup sequence in mutter, with a busy cursor, that lasts until a window is
/// activated with the token or 15 s have passed. xdg-activation has no request that ends a
/// token without a window; GNOME's gtk_shell1 has one, `set_startup_id`, which mutter answers
/// by completing the sequence of that id (meta-wayland-gtk-shell.c), and which GTK itself
/// sends only where there is no xdg-activation. A click that opens no window sends it here.
///
/// libwayland-client is loaded (`dlopen`) only for this, and gtk_shell1 is described by hand
/// (its two requests before `set_startup_id` and its one event, as gtk-shell.xml has them):
/// the command line links no Wayland library and generates no protocol code for one request.
enum WaylandStartupSequence {
    /// Sends gtk_shell1.set_startup_id(`id`) to the compositor `WAYLAND_DISPLAY` names and
    /// waits for it to have been handled (a roundtrip). Whether it was sent: not without
    /// libwayland-client, a compositor, or gtk_shell1 (KWin, wlroots: no GNOME busy cursor).
    static func end(_ id: String) -> Bool {
        guard let wayland = WaylandLibrary.load(), let display = wayland.connect(nil) else { return false }
        defer { wayland.disconnect(display) }
        let memory = Allocations()
        // Until the compositor has been left: its events are read with the tables in it.
        defer { withExtendedLifetime(memory) {} }
        guard let registry = wayland.marshal(display, 1, wayland.registryInterface, wayland.version(display), [.newID])
        else { return false }
        defer { wayland.destroy(registry) }
        let found = memory.bytes(MemoryLayout<UInt32>.size)
        guard wayland.addListener(registry, registryListener(memory), found) == 0, wayland.roundtrip(display) >= 0
        else { return false }
        let name = found.load(as: UInt32.self)
        // Registry names start at 1: 0 is "not announced".
        guard name != 0 else { return false }
        // wl_registry.bind(name, "gtk_shell1", 1, new_id): version 1 has set_startup_id.
        let shellInterface = gtkShell(memory)
        guard let shell = wayland.marshal(registry, 0, shellInterface, 1,
                                          [.uint(name), .string(memory.text("gtk_shell1")), .uint(1), .newID])
        else { return false }
        defer { wayland.destroy(shell) }
        _ = wayland.marshal(shell, 1, nil, 1, [.string(memory.text(id))])
        return wayland.roundtrip(display) >= 0
    }

    /// `struct wl_registry_listener` (global, global_remove), whose `global` writes the name
    /// gtk_shell1 is announced under to the UInt32 its data points at.
    private static func registryListener(_ memory: Allocations) -> UnsafeRawPointer {
        let global: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UInt32, UnsafePointer<CChar>?, UInt32) -> Void = {
            found, _, name, interface, _ in
            guard let found, let interface, strcmp(interface, "gtk_shell1") == 0 else { return }
            found.storeBytes(of: name, as: UInt32.self)
        }
        let remove: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UInt32) -> Void = { _, _, _ in }
        let listener = memory.bytes(2 * MemoryLayout<UnsafeRawPointer>.size)
        listener.storeBytes(of: unsafeBitCast(global, to: UnsafeRawPointer.self), as: UnsafeRawPointer.self)
        listener.storeBytes(of: unsafeBitCast(remove, to: UnsafeRawPointer.self), toByteOffset: 8, as: UnsafeRawPointer.self)
        return UnsafeRawPointer(listener)
    }

    /// `struct wl_interface` for gtk_shell1 at version 1, laid out as wayland-util.h has it
    /// on LP64: name 0, version 8, method_count 12, methods 16, event_count 24, events 32; each
    /// `struct wl_message` is name, signature, types (24 bytes). Only the signatures are read
    /// (set_startup_id's "?s" to marshal it, capabilities' "u" to read that event should the
    /// compositor send it); the types of get_gtk_surface's and system_bell's arguments, which
    /// this never sends, are left empty.
    private static func gtkShell(_ memory: Allocations) -> UnsafeRawPointer {
        let noTypes = memory.bytes(2 * MemoryLayout<UnsafeRawPointer>.size)
        func messages(_ list: [(name: String, signature: String)]) -> UnsafeRawPointer {
            let table = memory.bytes(24 * list.count)
            for (index, message) in list.enumerated() {
                table.storeBytes(of: memory.text(message.name), toByteOffset: 24 * index, as: UnsafeRawPointer.self)
                table.storeBytes(of: memory.text(message.signature), toByteOffset: 24 * index + 8, as: UnsafeRawPointer.self)
                table.storeBytes(of: UnsafeRawPointer(noTypes), toByteOffset: 24 * index + 16, as: UnsafeRawPointer.self)
            }
            return UnsafeRawPointer(table)
        }
        let interface = memory.bytes(40)
        interface.storeBytes(of: memory.text("gtk_shell1"), toByteOffset: 0, as: UnsafeRawPointer.self)
        interface.storeBytes(of: Int32(1), toByteOffset: 8, as: Int32.self)
        interface.storeBytes(of: Int32(3), toByteOffset: 12, as: Int32.self)
        interface.storeBytes(of: messages([("get_gtk_surface", "no"), ("set_startup_id", "?s"), ("system_bell", "?o")]),
                             toByteOffset: 16, as: UnsafeRawPointer.self)
        interface.storeBytes(of: Int32(1), toByteOffset: 24, as: Int32.self)
        interface.storeBytes(of: messages([("capabilities", "u")]), toByteOffset: 32, as: UnsafeRawPointer.self)
        return UnsafeRawPointer(interface)
    }
}

/// C memory for one exchange with the compositor (the interface description, the listener,
/// the strings sent), zeroed when taken and freed together when the exchange is over.
private final class Allocations {
    private var taken: [UnsafeMutableRawPointer] = []

    func bytes(_ count: Int) -> UnsafeMutableRawPointer {
        let pointer = calloc(1, count)!
        taken.append(pointer)
        return pointer
    }

    func text(_ string: String) -> UnsafeRawPointer {
        let pointer = strdup(string)!
        taken.append(UnsafeMutableRawPointer(pointer))
        return UnsafeRawPointer(pointer)
    }

    deinit {
        for pointer in taken { free(pointer) }
    }
}

/// One `union wl_argument` (8 bytes) of a request, as wl_proxy_marshal_array_flags reads them.
private enum WaylandArgument {
    case uint(UInt32)
    case string(UnsafeRawPointer)
    /// A new object's place: the library fills it in.
    case newID

    var bits: UInt64 {
        switch self {
        case .uint(let number): UInt64(number)
        case .string(let pointer): UInt64(UInt(bitPattern: pointer))
        case .newID: 0
        }
    }
}

/// The few libwayland-client functions `WaylandStartupSequence` calls, looked up in
/// libwayland-client.so.0 (`dlopen`, `dlsym`), and its `wl_registry_interface`.
private struct WaylandLibrary {
    typealias Proxy = OpaquePointer
    let connect: @convention(c) (UnsafePointer<CChar>?) -> Proxy?
    let disconnect: @convention(c) (Proxy) -> Void
    let roundtrip: @convention(c) (Proxy) -> Int32
    let version: @convention(c) (Proxy) -> UInt32
    let destroy: @convention(c) (Proxy) -> Void
    let addListener: @convention(c) (Proxy, UnsafeRawPointer, UnsafeMutableRawPointer?) -> Int32
    /// wl_proxy_marshal_array_flags (libwayland 1.20 and later; Debian 12 has 1.21): a
    /// request with its arguments in an array, where the header's inline helpers use a
    /// variadic function that Swift cannot call.
    let marshalArray: @convention(c) (Proxy, UInt32, UnsafeRawPointer?, UInt32, UInt32, UnsafeMutableRawPointer?) -> Proxy?
    let registryInterface: UnsafeRawPointer

    /// A request of `proxy`'s (its `opcode`), whose new object, if it makes one, has
    /// `interface` at `version`.
    func marshal(_ proxy: Proxy, _ opcode: UInt32, _ interface: UnsafeRawPointer?, _ version: UInt32,
                 _ arguments: [WaylandArgument]) -> Proxy? {
        var words = arguments.map(\.bits)
        return words.withUnsafeMutableBytes { marshalArray(proxy, opcode, interface, version, 0, $0.baseAddress) }
    }

    static func load() -> WaylandLibrary? {
        guard let library = OpenedLibrary("libwayland-client.so.0"),
              let connect = library.symbol("wl_display_connect", as: (@convention(c) (UnsafePointer<CChar>?) -> Proxy?).self),
              let disconnect = library.symbol("wl_display_disconnect", as: (@convention(c) (Proxy) -> Void).self),
              let roundtrip = library.symbol("wl_display_roundtrip", as: (@convention(c) (Proxy) -> Int32).self),
              let version = library.symbol("wl_proxy_get_version", as: (@convention(c) (Proxy) -> UInt32).self),
              let destroy = library.symbol("wl_proxy_destroy", as: (@convention(c) (Proxy) -> Void).self),
              let addListener = library.symbol("wl_proxy_add_listener",
                                       as: (@convention(c) (Proxy, UnsafeRawPointer, UnsafeMutableRawPointer?) -> Int32).self),
              let marshalArray = library.symbol("wl_proxy_marshal_array_flags", as: (@convention(c) (
                  Proxy, UInt32, UnsafeRawPointer?, UInt32, UInt32, UnsafeMutableRawPointer?) -> Proxy?).self),
              let registryInterface = library.address("wl_registry_interface")
        else { return nil }
        return WaylandLibrary(connect: connect, disconnect: disconnect, roundtrip: roundtrip, version: version,
                              destroy: destroy, addListener: addListener, marshalArray: marshalArray,
                              registryInterface: registryInterface)
    }
}
