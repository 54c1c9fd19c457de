import MailtoRoute

/// `mailto-route --version`: its own version and the libraries it runs with.
enum VersionCommand {
    static var text: String {
        var lines = ["mailto-route \(Versions.mailtoRoute)"]
        for library in Versions.libraries {
            lines.append("\(library.name) \(library.version)")
        }
        return lines.joined(separator: "\n")
    }
}
