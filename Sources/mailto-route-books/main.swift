#if canImport(Glibc)
import Glibc
#endif
import AddressBookHelper
import AddressLookup

// mailto-route-books: the desktop's address books (Evolution Data Server, through
// libebook) for the compose sheet's address completion, in a process of its own so that
// mailto-route-desktop never loads libebook (AddressBookHelper says why). Started by the
// sheet the first time someone types in To, Cc or Bcc, with a socket as its standard input
// and output; not meant to be run by hand.
//
// It opens the books marked for autocompletion, then answers each request line (a prefix)
// with one answer line (HelperProtocol), until its input ends. No book to read (no session
// bus, no EDS, none in autocompletion, no answer within 3 s): it exits at once, status 0,
// without answering, and the sheet completes from the history alone.

guard let books = AddressBooks.open() else { exit(0) }

/// Writes all of `text` to standard output; `false` when the reader has gone.
func answer(_ text: String) -> Bool {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let count = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return false }
        bytes = bytes.dropFirst(count)
    }
    return true
}

while let line = readLine(strippingNewline: true) {
    let prefix = HelperProtocol.prefix(fromRequest: line)
    let found = books.contacts(matching: prefix, limit: HelperProtocol.limit)
    guard answer(HelperProtocol.answer(found)) else { break }
}
