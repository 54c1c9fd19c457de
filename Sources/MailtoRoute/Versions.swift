import DesktopIntegration
import SMTPTransport

/// What `mailto-route --version` prints besides its own number.
public enum Versions {
    public static let mailtoRoute = "0.1.0"

    /// The run-time GLib and libcurl, not the ones built against.
    public static var libraries: [(name: String, version: String)] {
        [("GLib", GLibVersion.current), ("libcurl", CurlVersion.current)]
    }
}
