/// A MIME type for an attachment from its file name, when the caller gave none. A small
/// table of what people attach; everything else is `application/octet-stream`, which
/// every client offers to save.
public enum MIMEType {
    static let byExtension: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "csv": "text/csv", "html": "text/html", "htm": "text/html",
        "md": "text/markdown", "ics": "text/calendar", "vcf": "text/vcard", "xml": "application/xml",
        "json": "application/json", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar", "xz": "application/x-xz",
        "7z": "application/x-7z-compressed", "eml": "message/rfc822", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "svg": "image/svg+xml", "bmp": "image/bmp",
        "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic", "mp3": "audio/mpeg", "ogg": "audio/ogg",
        "opus": "audio/opus", "wav": "audio/wav", "flac": "audio/flac", "mp4": "video/mp4", "webm": "video/webm",
        "mkv": "video/x-matroska", "mov": "video/quicktime",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation",
        "doc": "application/msword", "xls": "application/vnd.ms-excel", "ppt": "application/vnd.ms-powerpoint",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "rtf": "application/rtf", "epub": "application/epub+zip",
    ]

    /// The type for `fileName`'s extension (case-insensitive), or `application/octet-stream`.
    public static func guess(fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else {
            return "application/octet-stream"
        }
        let ext = String(fileName[fileName.index(after: dot)...]).asciiLowercased()
        return byExtension[ext] ?? "application/octet-stream"
    }

    /// A caller's type: `type/subtype` of token characters only (RFC 2045 §5.1), so that
    /// it cannot carry parameters or a line break into the header.
    static func isValid(_ type: String) -> Bool {
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let tspecials = Set("()<>@,;:\\\"/[]?=".utf8)
        return parts.allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !tspecials.contains($0) }
        }
    }
}
