internal import CGIO
import MailtoCore

/// An XML element as GLib's `GMarkup` parser reads it: its name, attributes, text and
/// children. Enough for the small XML files mailto-route reads (a mail domain's
/// `config-v1.1.xml`); GMarkup takes no DTD and only XML's five named entities, which is
/// what such files use.
public struct MarkupElement: Sendable, Equatable {
    public var name: String
    public var attributes: [String: String]
    /// The text directly inside it, with its children's left out.
    public var text: String
    public var children: [MarkupElement]

    /// The children named `name`.
    public func children(_ name: String) -> [MarkupElement] {
        children.filter { $0.name == name }
    }

    /// The text of the first child named `name`, its line breaks and the white space at
    /// either end left out (values such as a host name or a port, often on lines of their own).
    public func childText(_ name: String) -> String? {
        children.first { $0.name == name }.map { String($0.text.filter { $0 != "\n" }).trimmingSpaces() }
    }

    /// Parses `text` with `g_markup_parse_context_parse` (the context is ours, freed with
    /// `g_markup_parse_context_free`); throws (kind `input`, with GLib's words) when it is
    /// not well-formed. `path` names it in the error.
    public static func parse(_ text: String, path: String) throws(DesktopError) -> MarkupElement {
        let builder = TreeBuilder()
        var parser = GMarkupParser(start_element: markupStart, end_element: markupEnd, text: markupText,
                                   passthrough: nil, error: nil)
        let userData = Unmanaged.passUnretained(builder).toOpaque()
        let context = g_markup_parse_context_new(&parser, GMarkupParseFlags(rawValue: 0), userData, nil)
        defer { g_markup_parse_context_free(context) }
        var error: UnsafeMutablePointer<GError>?
        let parsed = withExtendedLifetime(builder) {
            g_markup_parse_context_parse(context, text, gssize(text.utf8.count), &error) != 0
                && g_markup_parse_context_end_parse(context, &error) != 0
        }
        guard parsed, let root = builder.root else {
            throw takeError(error, .input, "\(path) is not well-formed XML")
        }
        return root
    }
}

/// What GMarkup's callbacks build: the open elements, innermost last.
private final class TreeBuilder {
    var open: [MarkupElement] = []
    var root: MarkupElement?
}

private func markupStart(
    _ context: OpaquePointer?, _ name: UnsafePointer<gchar>?, _ names: UnsafeMutablePointer<UnsafePointer<gchar>?>?,
    _ values: UnsafeMutablePointer<UnsafePointer<gchar>?>?, _ userData: gpointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
) {
    guard let userData, let name else { return }
    let builder = Unmanaged<TreeBuilder>.fromOpaque(userData).takeUnretainedValue()
    var attributes: [String: String] = [:]
    var index = 0
    while let names, let values, let key = names[index], let value = values[index] {
        attributes[String(cString: key)] = String(cString: value)
        index += 1
    }
    builder.open.append(MarkupElement(name: String(cString: name), attributes: attributes, text: "", children: []))
}

private func markupEnd(
    _ context: OpaquePointer?, _ name: UnsafePointer<gchar>?, _ userData: gpointer?,
    _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
) {
    guard let userData else { return }
    let builder = Unmanaged<TreeBuilder>.fromOpaque(userData).takeUnretainedValue()
    guard let element = builder.open.popLast() else { return }
    if builder.open.isEmpty {
        builder.root = element
    } else {
        builder.open[builder.open.count - 1].children.append(element)
    }
}

private func markupText(
    _ context: OpaquePointer?, _ text: UnsafePointer<gchar>?, _ length: gsize, _ userData: gpointer?,
    _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
) {
    guard let userData, let text, !Unmanaged<TreeBuilder>.fromOpaque(userData).takeUnretainedValue().open.isEmpty else { return }
    let builder = Unmanaged<TreeBuilder>.fromOpaque(userData).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: text, count: Int(length))
    builder.open[builder.open.count - 1].text += String(decoding: bytes, as: UTF8.self)
}
