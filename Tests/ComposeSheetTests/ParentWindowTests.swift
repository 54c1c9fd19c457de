import Testing
import ComposeSheet

/// The application's window a portal names (`parent_window`, `PARENT_WINDOW_ID`), read as the
/// portal spec writes it.
@Suite struct ParentWindowTests {
    @Test func anX11IdIsHexadecimal() {
        #expect(ParentWindow("x11:1e00007") == .x11(0x1e00007))
        #expect(ParentWindow("x11:0x1e00007") == .x11(0x1e00007))
    }

    @Test func aWaylandHandleIsTakenAsItIs() {
        #expect(ParentWindow("wayland:0b9a1c3e-7f2d-4d3a") == .wayland("0b9a1c3e-7f2d-4d3a"))
    }

    @Test func noneOrOneNotUnderstoodIsNoParent() {
        // Chromium's OpenURI names no window: the portal's launch sets PARENT_WINDOW_ID empty.
        for identifier in [nil, "", "x11:", "x11:0", "x11:zz", "wayland:", "1e00007", "mir:3"] {
            #expect(ParentWindow(identifier) == nil, "\(identifier ?? "nil")")
        }
    }
}
