extension String {
    /// Without the spaces, tabs and carriage returns at either end: the white space of
    /// header fields, key files and msmtprc lines (a CRLF file leaves a CR at each line's
    /// end). Other white space is text and stays.
    public func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        let isSpace = { (scalar: Unicode.Scalar) in scalar == " " || scalar == "\t" || scalar == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
