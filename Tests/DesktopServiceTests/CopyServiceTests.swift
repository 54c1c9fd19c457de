import ComposeSheet
import DesktopIntegration
import MailtoRoute
import MailtoRouteDesktop
import MainLoop
import RouteFakes
import Testing

/// The service's `Copy` in-process: the text on the fake desktop's clipboard, the program
/// held while it owns the clipboard (a service that idled out would take the copy with it)
/// and let go once another program takes it; no display, a reason and nothing held.
@Suite(.onTheMainLoop) struct CopyServiceTests {
    @Test @GLibMainActor func copyHoldsTheServiceUntilAnotherProgramTakesTheClipboard() throws {
        let world = try ServiceWorld(config: nil)
        try world.service.copy("Joe <joe@bücher.example>")
        #expect(world.desktop.clipboard == "Joe <joe@bücher.example>")
        #expect(world.desktop.holds == 1)
        // A second copy replaces the text under the same hold.
        try world.service.copy("ann@example.org")
        #expect(world.desktop.clipboard == "ann@example.org")
        #expect(world.desktop.holds == 1)
        world.desktop.clipboardTaken()
        #expect(world.desktop.holds == 0)
    }

    @Test @GLibMainActor func withoutADisplayCopySaysWhyAndHoldsNothing() throws {
        let world = try ServiceWorld(config: nil)
        world.desktop.showsSheets = false
        #expect(throws: DesktopError.self) { try world.service.copy("ann@example.org") }
        #expect(world.desktop.clipboard == nil)
        #expect(world.desktop.holds == 0)
    }
}
