extension EmailData {
    /// The shape `mailto-route parse --json` prints (docs/mailto-rules.md), keys in a fixed order.
    public var json: JSON {
        .object([
            ("to", .strings(to)),
            ("cc", .strings(cc)),
            ("bcc", .strings(bcc)),
            ("subject", .string(subject)),
            ("body", .string(body)),
            ("isBodyHTML", .bool(isBodyHTML)),
            ("headers", .object(EmailData.safeHeaderNames.compactMap { name in
                headers[name].map { (name, JSON.string($0)) }
            })),
            ("attachments", .array(attachments.map(\.json))),
            ("dropped", .array(dropped.map { .object([("name", .string($0.name)), ("reason", .string($0.reason.description))]) })),
        ])
    }

    /// One field a line, for a person at a terminal; control and bidirectional characters
    /// are shown escaped, so what is printed is what is there.
    public var readableLines: [String] {
        var lines: [String] = []
        func line(_ label: String, _ value: String) {
            lines.append(label.padding(to: 13) + value.visible)
        }
        if !to.isEmpty { line(tr("To:"), to.joined(separator: ", ")) }
        if !cc.isEmpty { line(tr("Cc:"), cc.joined(separator: ", ")) }
        if !bcc.isEmpty { line(tr("Bcc:"), bcc.joined(separator: ", ")) }
        if let subject { line(tr("Subject:"), subject) }
        for name in EmailData.safeHeaderNames {
            if let value = headers[name] { line(name.headerCapitalized + ":", value) }
        }
        for attachment in attachments {
            line(tr("Attachment:"), attachment.fileName + (attachment.mimeType.map { " (\($0))" } ?? ""))
        }
        for field in dropped {
            line(tr("Dropped:"), "\(field.name) (\(field.reason))")
        }
        if let body {
            lines.append(isBodyHTML ? tr("Body (HTML):") : tr("Body:"))
            for bodyLine in body.split(separator: "\r\n", omittingEmptySubsequences: false) {
                lines.append("  " + String(bodyLine).visible)
            }
        }
        if lines.isEmpty { lines.append(tr("(no recipients, no fields)")) }
        return lines
    }
}

extension Attachment {
    var json: JSON {
        var members: [(String, JSON)] = [("fileName", .string(fileName)), ("mimeType", .string(mimeType))]
        switch content {
        case .file(let path): members.append(("path", .string(path)))
        case .data(let bytes): members.append(("size", .int(bytes.count)))
        }
        return .object(members)
    }
}

extension String {
    /// Control characters, invisible formatting and bidirectional controls written as
    /// `\u{…}` (CR, LF and tab as `\r`, `\n`, `\t`), so that a prompt shows what is there.
    public var visible: String {
        guard unicodeScalars.contains(where: \.isInvisibleOrControl) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.isInvisibleOrControl:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }

    /// `in-reply-to` → `In-Reply-To`.
    public var headerCapitalized: String {
        split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
    }
}

extension Unicode.Scalar {
    /// C0 and C1 controls, DEL, and the characters a link can use to disguise text:
    /// bidirectional embeddings, overrides and isolates, zero-width and invisible format
    /// characters, the soft hyphen, the byte-order mark, interlinear annotations, tag
    /// characters, and the line and paragraph separators (which many terminals and
    /// notification servers show as a line break, faking a line of the question).
    public var isInvisibleOrControl: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F, 0x00AD: true
        case 0x061C, 0x180E, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x206F, 0xFEFF: true
        case 0xFFF9...0xFFFB, 0xE0000...0xE007F: true
        default: false
        }
    }
}
