// swift-tools-version:6.1
import PackageDescription

// Only CGIO and CCurl touch C; each arrow in ../shared/DESIGN.md's module table is a
// dependency here and nothing more.
let package = Package(
    name: "mailto-route",
    products: [
        .executable(name: "mailto-route", targets: ["mailto-route"]),
        .executable(name: "mailto-route-desktop", targets: ["mailto-route-desktop"]),
        .executable(name: "mailto-route-books", targets: ["mailto-route-books"]),
        .library(name: "MailtoRoute", targets: ["MailtoRoute"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGIO",
            // GLib only: GIO's headers come with it, and GIO itself is opened with dlopen
            // when first needed (CGIO/shim.h), so that a direct send never loads it.
            pkgConfig: "glib-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // libcurl's headers only: the library itself is loaded with dlopen when a message
        // is sent, so that the handoff path never pays for OpenSSL and friends at start-up.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // GTK 4 and libadwaita 1.2, for the compose sheet only: linked into
        // mailto-route-desktop, never into the command line, whose handoff and send paths
        // must not load them.
        .systemLibrary(
            name: "CGTK",
            pkgConfig: "libadwaita-1",
            providers: [.apt(["libadwaita-1-dev"])]
        ),
        // gettext's header (glibc has gettext itself): Localization's tr() and its binding.
        .systemLibrary(name: "CIntl"),
        .target(name: "MailtoCore", dependencies: ["CIntl"]),
        // The desktop entries and D-Bus service files that `register` installs are data/'s,
        // embedded at build time (embedded.txt names them).
        .target(name: "DesktopIntegration", dependencies: ["CGIO", "MailtoCore"], exclude: ["embedded.txt"],
                plugins: ["EmbedText"]),
        // Makes files of the tree into a target's Swift source at build time (its embedded.txt).
        .plugin(name: "EmbedText", capability: .buildTool(), dependencies: ["embed-text"]),
        .executableTarget(name: "embed-text"),
        .target(name: "MIMEMessage", dependencies: ["CGIO", "MailtoCore"]),
        .target(name: "SMTPTransport", dependencies: ["CCurl", "MailtoCore", "MIMEMessage"]),
        // Pure Swift + POSIX, no Foundation: linked into the command line, whose start-up
        // every click pays. Holds the message as bytes; MIMEMessage builds them and reads
        // their header (one header reader for drafts, the outbox and compose).
        .target(name: "Outbox", dependencies: ["MailtoCore", "MIMEMessage"]),
        .target(
            name: "MailtoRoute",
            dependencies: ["MailtoCore", "MIMEMessage", "DesktopIntegration", "SMTPTransport", "Outbox"]
        ),
        // The compose sheet: the only module that imports CGTK; its API is GTK-free.
        // Its windows are GtkBuilder .ui files under UI/, embedded at build time (embedded.txt).
        // enchant-2, the spell checker, for the sheet's message only.
        .systemLibrary(name: "CEnchant", pkgConfig: "enchant-2", providers: [.apt(["libenchant-2-dev"])]),
        // libebook, Evolution Data Server's client library: the user's address books, for the
        // sheet's address completion only (linked into mailto-route-desktop, never the CLI).
        .systemLibrary(name: "CEBook", pkgConfig: "libebook-1.2", providers: [.apt(["libebook1.2-dev"])]),
        // The address books (EDS) the sheet's To, Cc and Bcc completion reads; GTK-free, so that
        // its tests and their probe run without a display.
        .target(name: "AddressLookup", dependencies: ["CEBook", "MailtoCore"]),
        // The sheet's side of the address books: the protocol to mailto-route-books and its
        // client, which starts it when someone first types (pure Swift and POSIX: no libebook).
        .target(name: "AddressBookHelper", dependencies: ["MailtoCore", "Outbox"]),
        // The address books for the sheet, in a process of its own: libebook is never
        // loaded into mailto-route-desktop (AddressBookHelper says why).
        .executableTarget(name: "mailto-route-books", dependencies: ["AddressLookup", "AddressBookHelper"]),
        // The actor of GLib's main context, which the desktop side's main-loop types are
        // isolated to; apart from DesktopIntegration so that the command line, which links
        // that, starts without Swift's concurrency runtime (and libdispatch) at every click.
        .target(name: "MainLoop", dependencies: ["CGIO"]),
        .target(name: "ComposeSheet", dependencies: ["CGTK", "CEnchant", "MailtoCore", "MIMEMessage", "DesktopIntegration", "MainLoop"],
                exclude: ["UI", "embedded.txt"], plugins: ["EmbedText"]),
        // The desktop side as a library: the service, the sheet's and the chooser's delivery,
        // the outbox while the service owns it, notifications; what it shows goes through a
        // presenter (the GTK application, or a test's fake), its sessions through a context.
        .target(name: "MailtoRouteDesktop", dependencies: ["ComposeSheet", "MailtoRoute", "AddressBookHelper", "MainLoop"]),
        // The desktop program: its arguments and one call into MailtoRouteDesktop. Shows the
        // sheet for `open` and `compose` (the CLI starts it when there is a display), and
        // performs what the user chose through MailtoRoute.
        .executableTarget(name: "mailto-route-desktop", dependencies: ["MailtoRouteDesktop", "MailtoCore"]),
        // The command line as a library: every subcommand, the argument parser, the output;
        // tested in-process (CLITests) as well as by running the binary.
        .target(name: "MailtoRouteCLI", dependencies: ["MailtoRoute", "Check"]),
        // `mailto-route check`: what a click would do now (the plan on this machine's facts),
        // section by section, and what to fix.
        .target(name: "Check", dependencies: ["MailtoRoute", "DesktopIntegration", "SMTPTransport", "Outbox"]),
        .executableTarget(
            name: "mailto-route",
            dependencies: ["MailtoRouteCLI", "MailtoCore"],
            // The C++ runtime under the Swift runtime, linked in rather than loaded: with
            // --static-swift-stdlib, loading libstdc++.so.6 and libgcc_s.so.1 (libgcc_s's
            // initialiser runs CPUID, slow in a VM) took about 0.7 ms of every start-up, a
            // tenth of a whole send. Linker/StaticCxx turns -lstdc++ into the static archive;
            // it changes nothing when the Swift runtime is linked dynamically (debug builds).
            // Linked by lld with packed relative relocations (DT_RELR, glibc 2.36): the
            // static runtime's 21,700 relative relocations take 4 KB instead of 520 KB,
            // which the loader read and applied at every start-up (gold cannot pack them).
            // --no-export-dynamic undoes the static runtime's -export-dynamic: nothing looks
            // up mailto-route's own symbols, and with 2,900 of them first in the global scope
            // every symbol of GIO and its libraries, loaded later, was looked up there first.
            // Linker/mailto-route.order (scripts/order-file) puts the functions a click runs
            // side by side, which release builds can move one by one (the Makefile's
            // -function-sections): a send then faults in 32 stretches of code rather than 76.
            // A function the list names that the program no longer has is skipped, unwarned.
            linkerSettings: [
                .unsafeFlags(["-L", Context.packageDirectory + "/Linker/StaticCxx", "-Xclang-linker", "-static-libgcc",
                              "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                              "-Xlinker", "--symbol-ordering-file=" + Context.packageDirectory + "/Linker/mailto-route.order",
                              "-Xlinker", "--no-warn-symbol-ordering"]),
            ]
        ),
        // Outbox: the flush benchmark queues its 10,000 messages directly. SMTPTransport: it
        // times libcurl alone too. TestSupport: every process it runs gets HOME and every
        // XDG_* directory of its own, as the tests' do.
        .executableTarget(name: "bench", dependencies: ["MailtoCore", "Outbox", "SMTPTransport", "TestSupport"]),
        // Test helper: flushes an outbox with a sender that records deliveries to a file,
        // so that the tests can kill it with SIGKILL half-way and count what was lost.
        .executableTarget(name: "outbox-torture", dependencies: ["Outbox"], path: "Tests/OutboxTorture"),
        // Shared by the test targets: sandboxes (HOME, XDG_*), running the built binary,
        // and the real servers the tests talk to.
        // The Python servers and drivers under Servers/ and Resources/ run from the source tree.
        .target(name: "TestSupport", dependencies: ["CGIO", "CTestProcess", "MainLoop"], path: "Tests/TestSupport", exclude: ["Servers", "Resources"],
                // Its bus calls (BusCall.swift) use GDBus directly: GIO is linked, not opened.
                linkerSettings: [.linkedLibrary("gio-2.0"), .linkedLibrary("gobject-2.0")]),
        // pidfd_send_signal, for TestSupport's ProcessReference (pidfd_open is CGIO's).
        .systemLibrary(name: "CTestProcess", path: "Tests/CTestProcess"),
        .testTarget(name: "MailtoCoreTests", dependencies: ["MailtoCore"]),
        // Snapshots/ holds expected outputs, read from the source tree.
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "mailto-route", "MailtoRouteCLI", "MailtoRoute", "Check", "Outbox", "RouteFakes", "SMTPTransport"], exclude: ["Snapshots"]),
        // DesktopIntegration in-process too, for what needs no GIO (ExecLine: GLib only).
        .testTarget(
            name: "DesktopIntegrationTests",
            dependencies: ["TestSupport", "mailto-route", "Outbox", "DesktopIntegration"]
        ),
        // Asks for consent and shows report notifications in a subprocess, for
        // NotificationTests (a pseudo-terminal, a private bus); never installed.
        .executableTarget(name: "consent-probe", dependencies: ["MailtoRoute"], path: "Tests/ConsentProbe"),
        .testTarget(
            name: "NotificationTests",
            dependencies: ["TestSupport", "consent-probe"]
        ),
        .testTarget(name: "OutboxTests", dependencies: ["Outbox", "TestSupport", "outbox-torture"]),
        .testTarget(name: "MIMEMessageTests", dependencies: ["MIMEMessage", "TestSupport"]),
        // In-process: the plan, the configuration readers, the compose reader, a Session
        // built from given paths and text, the Router with fakes for what it reaches.
        .testTarget(name: "MailtoRouteTests", dependencies: ["MailtoRoute", "Outbox", "SMTPTransport", "RouteFakes"]),
        // In-process: the Email portal's backend rule of each version (PortalTrees/: fixture
        // installations, read from the source tree), the verdict.
        .testTarget(name: "CheckTests", dependencies: ["Check", "MailtoRoute"], exclude: ["PortalTrees"]),
        // Fakes for the Session's services (Services), for in-process tests of the Router and
        // of the command line.
        .target(name: "RouteFakes", dependencies: ["MailtoRoute", "MIMEMessage", "Outbox", "SMTPTransport"], path: "Tests/RouteFakes"),
        .testTarget(name: "SMTPTransportTests", dependencies: ["SMTPTransport", "MIMEMessage", "CCurl"]),
        // End-to-end: the built binary against real SMTP servers (Tests/TestSupport/Resources).
        .testTarget(name: "SendTests", dependencies: ["TestSupport", "mailto-route", "Outbox", "SMTPTransport", "bench"]),
        // End-to-end: the Router's choices, with real servers, a real bus, a real terminal.
        .testTarget(name: "RouterTests", dependencies: ["TestSupport", "mailto-route"]),
        // The sheet's logic in-process (addresses, files, recovery), then the real window,
        // driven through AT-SPI under Xvfb (Servers/sheet-driver.py).
        .testTarget(name: "ComposeSheetTests", dependencies: ["ComposeSheet", "CGTK", "MailtoCore", "TestSupport"]),
        // Looks up the address books in a subprocess, for AddressLookupTests (a private bus with
        // Debian's real evolution-data-server); never installed.
        .executableTarget(name: "address-book-probe", dependencies: ["AddressLookup"], path: "Tests/AddressBookProbe"),
        // The queries in-process; the books end to end, through address-book-probe.
        .testTarget(name: "AddressLookupTests", dependencies: [
            "AddressLookup", "AddressBookHelper", "CEBook", "TestSupport", "address-book-probe", "mailto-route-books",
        ]),
        // The desktop service's behaviour in-process: a fake desktop (sheets, choosers,
        // notifications, a main loop, timers on a fake clock) and RouteFakes' world.
        .testTarget(name: "DesktopServiceTests", dependencies: ["MailtoRouteDesktop", "RouteFakes", "ComposeSheet", "SMTPTransport", "TestSupport", "MainLoop"]),
        .testTarget(name: "SheetTests", dependencies: ["TestSupport", "mailto-route", "mailto-route-desktop", "mailto-route-books"]),
    ]
)
