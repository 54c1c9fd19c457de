// swift-tools-version:6.0
import PackageDescription

// Only CGIO and CCurl touch C; each arrow in ../shared/DESIGN.md's module table is a
// dependency here and nothing more.
let package = Package(
    name: "mailto-route",
    products: [
        .executable(name: "mailto-route", targets: ["mailto-route"]),
        .library(name: "MailtoRoute", targets: ["MailtoRoute"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGIO",
            pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // libcurl's headers only: the library itself is loaded with dlopen when a message
        // is sent, so that the handoff path never pays for OpenSSL and friends at start-up.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "MailtoCore"),
        .target(name: "DesktopIntegration", dependencies: ["CGIO", "MailtoCore"]),
        .target(name: "MIMEMessage", dependencies: ["MailtoCore"]),
        .target(name: "SMTPTransport", dependencies: ["CCurl", "MailtoCore", "MIMEMessage"]),
        .target(
            name: "MailtoRoute",
            dependencies: ["MailtoCore", "MIMEMessage", "DesktopIntegration", "SMTPTransport"]
        ),
        .executableTarget(name: "mailto-route", dependencies: ["MailtoRoute"]),
        .executableTarget(name: "bench", dependencies: ["MailtoCore"]),
        // Shared by the test targets: sandboxes (HOME, XDG_*), running the built binary,
        // and the real servers the tests talk to.
        .target(name: "TestSupport", path: "Tests/TestSupport", exclude: ["Resources"]),
        .testTarget(name: "MailtoCoreTests", dependencies: ["MailtoCore"]),
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "mailto-route"]),
        .testTarget(name: "MIMEMessageTests", dependencies: ["MIMEMessage", "TestSupport"]),
        .testTarget(name: "SMTPTransportTests", dependencies: ["SMTPTransport", "MIMEMessage"]),
        // End-to-end: the built binary against real SMTP servers (Tests/TestSupport/Resources).
        .testTarget(name: "SendTests", dependencies: ["TestSupport", "mailto-route"]),
    ]
)
