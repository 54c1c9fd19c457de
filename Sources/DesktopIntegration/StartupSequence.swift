#if canImport(Glibc)
import Glibc
#endif

/// A click's startup sequence (the freedesktop startup notification spec), which shows a
/// busy cursor until the program the click started says it has a window, or the launcher's
/// timeout (15 s and more) runs out. On X11 the launcher began it under the id it put in
/// `DESKTOP_STARTUP_ID`, and GTK says `remove` when its first window maps; under mutter on
/// Wayland the click's activation token is the sequence (`WaylandStartupSequence`). A click
/// that opens no window of mailto-route's and starts no program that takes the id ends it
/// here.
///
/// libX11 and libwayland-client are loaded (`dlopen`) only for this: the command line links
/// neither, and a send or a handoff without a startup id loads none.
public enum StartupSequence {
    /// Ends the sequence `id` on the displays this process has: the Wayland compositor
    /// `WAYLAND_DISPLAY` names and the X display `DISPLAY` names (a GNOME session has both,
    /// and a click from an X11 program under Xwayland begins its sequence on X). Whether it was
    /// sent to either.
    @discardableResult
    public static func end(_ id: String) -> Bool {
        let onWayland = getenv("WAYLAND_DISPLAY") != nil && WaylandStartupSequence.end(id)
        let onX11 = getenv("DISPLAY") != nil && endOnX11(id)
        return onWayland || onX11
    }

    /// Sends `remove: ID="id"` to the root window of the X display `DISPLAY` names, as
    /// libstartup-notification's sn_launchee_context_complete does: one ClientMessage of type
    /// `_NET_STARTUP_INFO_BEGIN` and then `_NET_STARTUP_INFO` for each further 20 bytes of the
    /// NUL-ended text, from a window of this process's. Whether it was sent (no libX11, no
    /// display: not).
    private static func endOnX11(_ id: String) -> Bool {
        guard let xlib = XLib.load(), let display = xlib.openDisplay(nil) else { return false }
        defer { _ = xlib.closeDisplay(display) }
        let root = xlib.defaultRootWindow(display)
        let window = xlib.createSimpleWindow(display, root, -100, -100, 1, 1, 0, 0, 0)
        defer { _ = xlib.destroyWindow(display, window) }
        let begin = xlib.internAtom(display, "_NET_STARTUP_INFO_BEGIN", 0)
        let more = xlib.internAtom(display, "_NET_STARTUP_INFO", 0)
        let bytes = Array(message(id).utf8) + [0]
        for (index, start) in stride(from: 0, to: bytes.count, by: 20).enumerated() {
            var event = ClientMessage(window: window, type: index == 0 ? begin : more,
                                      data: Array(bytes[start..<min(start + 20, bytes.count)]))
            _ = withUnsafeMutableBytes(of: &event.storage) {
                xlib.sendEvent(display, root, 0, propertyChangeMask, $0.baseAddress)
            }
        }
        _ = xlib.flush(display)
        return true
    }

    /// The spec's message: `remove: ID="…"`, with `"` and `\` escaped.
    public static func message(_ id: String) -> String {
        var quoted = ""
        for character in id {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return "remove: ID=\"\(quoted)\""
    }

    /// PropertyChangeMask: the root window's listeners of startup messages select it.
    private static let propertyChangeMask = 1 << 22
}

/// An XClientMessageEvent of format 8 in an XEvent's 192 bytes, laid out as Xlib.h has it
/// on LP64 (Debian's amd64 and arm64): type at 0, serial 8, send_event 16, display 24,
/// window 32, message_type 40, format 48, data 56 (20 bytes).
private struct ClientMessage {
    var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                  UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    init(window: UInt, type: UInt, data: [UInt8]) {
        withUnsafeMutableBytes(of: &storage) { event in
            event.storeBytes(of: Int32(33), toByteOffset: 0, as: Int32.self) // ClientMessage
            event.storeBytes(of: Int32(1), toByteOffset: 16, as: Int32.self) // send_event
            event.storeBytes(of: window, toByteOffset: 32, as: UInt.self)
            event.storeBytes(of: type, toByteOffset: 40, as: UInt.self)
            event.storeBytes(of: Int32(8), toByteOffset: 48, as: Int32.self) // format
            for (offset, byte) in data.enumerated() { event[56 + offset] = byte }
        }
    }
}

/// The few libX11 functions `end` calls, looked up in libX11.so.6 (`dlopen`, `dlsym`).
private struct XLib {
    typealias Display = OpaquePointer
    let openDisplay: @convention(c) (UnsafePointer<CChar>?) -> Display?
    let closeDisplay: @convention(c) (Display) -> Int32
    let defaultRootWindow: @convention(c) (Display) -> UInt
    let createSimpleWindow: @convention(c) (Display, UInt, Int32, Int32, UInt32, UInt32, UInt32, UInt, UInt) -> UInt
    let destroyWindow: @convention(c) (Display, UInt) -> Int32
    let internAtom: @convention(c) (Display, UnsafePointer<CChar>, Int32) -> UInt
    let sendEvent: @convention(c) (Display, UInt, Int32, Int, UnsafeMutableRawPointer?) -> Int32
    let flush: @convention(c) (Display) -> Int32

    static func load() -> XLib? {
        guard let library = OpenedLibrary("libX11.so.6"),
              let openDisplay = library.symbol("XOpenDisplay", as: (@convention(c) (UnsafePointer<CChar>?) -> Display?).self),
              let closeDisplay = library.symbol("XCloseDisplay", as: (@convention(c) (Display) -> Int32).self),
              let defaultRootWindow = library.symbol("XDefaultRootWindow", as: (@convention(c) (Display) -> UInt).self),
              let createSimpleWindow = library.symbol("XCreateSimpleWindow", as: (@convention(c) (
                  Display, UInt, Int32, Int32, UInt32, UInt32, UInt32, UInt, UInt) -> UInt).self),
              let destroyWindow = library.symbol("XDestroyWindow", as: (@convention(c) (Display, UInt) -> Int32).self),
              let internAtom = library.symbol("XInternAtom", as: (@convention(c) (Display, UnsafePointer<CChar>, Int32) -> UInt).self),
              let sendEvent = library.symbol("XSendEvent", as: (@convention(c) (Display, UInt, Int32, Int, UnsafeMutableRawPointer?) -> Int32).self),
              let flush = library.symbol("XFlush", as: (@convention(c) (Display) -> Int32).self)
        else { return nil }
        return XLib(openDisplay: openDisplay, closeDisplay: closeDisplay, defaultRootWindow: defaultRootWindow,
                    createSimpleWindow: createSimpleWindow, destroyWindow: destroyWindow, internAtom: internAtom,
                    sendEvent: sendEvent, flush: flush)
    }
}

/// A C library opened with `dlopen` for a few of its symbols, never closed: a process opens
/// it once at most.
struct OpenedLibrary {
    private let handle: UnsafeMutableRawPointer

    init?(_ name: String) {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { return nil }
        self.handle = handle
    }

    /// The function `name` as `T` (a `@convention(c)` type), or `nil` where the library has none.
    func symbol<T>(_ name: String, as _: T.Type) -> T? {
        dlsym(handle, name).map { unsafeBitCast($0, to: T.self) }
    }

    /// The address of the data symbol `name`.
    func address(_ name: String) -> UnsafeRawPointer? {
        dlsym(handle, name).map { UnsafeRawPointer($0) }
    }
}
