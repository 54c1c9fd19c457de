internal import CGIO

/// The GLib this process runs with (not the one it was built against).
public enum GLibVersion {
    /// Reads `glib_major_version` and friends, the run-time library's own numbers.
    public static var current: String {
        "\(mr_glib_major_version()).\(mr_glib_minor_version()).\(mr_glib_micro_version())"
    }
}
