import MailtoRoute

/// Columns padded to their widest cell, for listings a person reads. Cells are shown with
/// control and bidirectional characters escaped: a subject is text from outside.
struct Table {
    private var rows: [[String]]

    init(header: [String]) {
        rows = [header]
    }

    mutating func add(_ cells: [String]) {
        rows.append(cells.map(\.visible))
    }

    var lines: [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                let isLast = index == row.count - 1
                line += isLast ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            // An empty last column leaves no trailing blanks.
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}

extension String {
    /// At most `length` characters, with `…` when cut.
    func cut(to length: Int) -> String {
        count <= length ? self : String(prefix(max(0, length - 1))) + "…"
    }
}
