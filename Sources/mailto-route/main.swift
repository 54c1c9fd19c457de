#if canImport(Glibc)
import Glibc
#endif
import MailtoCore
import MailtoRouteCLI

// Everything is done and said by the time `run` returns: output goes out with write(2), not
// stdio, and what must survive is on disk (the outbox and drafts fsync their files;
// docs/design.md rule 3). exit(3) would still run the C libraries' exit handlers, which only
// free memory the kernel takes back anyway (libcurl's OpenSSL and GnuTLS clean-ups, p11-kit's
// finalisation): about 0.2 ms of every send.
let words = CommandLineTool.processWords()
// A person's language for what a person reads; JSON is for programs, and stays as it is
// documented, messages included (the catalog is only opened by the first message said).
if !CommandLineTool.asksForJSON(words) { Localization.bind() }
_exit(CommandLineTool.run(words, context: .current()))
