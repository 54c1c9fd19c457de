#if canImport(Glibc)
import Glibc
#endif
import Outbox

// outbox-torture: the process the outbox tests kill.
//
//   outbox-torture fill OUTBOX COUNT              queue COUNT small messages
//   outbox-torture flush OUTBOX DELIVERIES [MS]   flush everything queued; the fake sender
//                                                 appends "<id>\n" to DELIVERIES and
//                                                 fsyncs it (the "server accepted" moment),
//                                                 sleeping MS/2 milliseconds before and
//                                                 MS/2 after (so that a kill often lands
//                                                 between a delivery and its removal)
//   outbox-torture enqueue OUTBOX BYTES [FSIZE]   queue one message of BYTES bytes, with
//                                                 RLIMIT_FSIZE set to FSIZE when given
//
// Exit 0 on success; on an error, its text on standard error and exit 1.

func fail(_ text: String) -> Never {
    let line = Array("outbox-torture: \(text)\n".utf8)
    _ = write(STDERR_FILENO, line, line.count)
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else { fail("usage: fill|flush|enqueue OUTBOX ...") }
let outbox = Outbox(directory: arguments[1])

func message(_ index: Int, size: Int = 0) -> OutboxMessage {
    var text = "From: a@example.org\r\nTo: b@example.org\r\nSubject: message \(index)\r\nMessage-ID: <\(index)@torture>\r\n\r\n"
    text += String(repeating: "x", count: max(0, size - text.utf8.count))
    return OutboxMessage(bytes: Array(text.utf8), envelopeFrom: "a@example.org", recipients: ["b@example.org"])
}

do {
    switch arguments[0] {
    case "fill":
        guard arguments.count == 3, let count = Int(arguments[2]) else { fail("fill OUTBOX COUNT") }
        for index in 0..<count { try outbox.enqueue(message(index)) }
    case "flush":
        guard arguments.count >= 3 else { fail("flush OUTBOX DELIVERIES [MS]") }
        let pause = arguments.count > 3 ? Int32(arguments[3]) ?? 0 : 0
        // Half of a send's MS: the time a real sender spends before and after the server's
        // acceptance, which the tests' kills are meant to hit. Nothing is waited for.
        let halfASend = { if pause > 0 { usleep(useconds_t(pause) * 500) } }
        let deliveries = open(arguments[2], O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard deliveries >= 0 else { fail("cannot open \(arguments[2])") }
        // A flush the user runs: every queued message, due or not (as `outbox flush`).
        let reports = try outbox.flush(allQueued: true) { claim in
            halfASend()
            // As a real sender does before the end of the data: the message before must
            // be out of the outbox before this one can be accepted.
            try claim.beforeAcceptance?()
            let line = Array((claim.entry.id + "\n").utf8)
            guard write(deliveries, line, line.count) == line.count, fsync(deliveries) == 0 else {
                fail("cannot record a delivery")
            }
            halfASend()
        }
        for report in reports where report.outcome != .sent || report.storeError != nil {
            fail("\(report.id): \(report.outcome) \(report.storeError?.description ?? "")")
        }
        print("flushed \(reports.count)")
    case "enqueue":
        guard arguments.count >= 3, let size = Int(arguments[2]) else { fail("enqueue OUTBOX BYTES [FSIZE]") }
        if arguments.count > 3, let limit = UInt(arguments[3]) {
            // Writing past the limit then fails with EFBIG instead of killing the process.
            signal(SIGXFSZ, SIG_IGN)
            var rlim = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
            guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &rlim) == 0 else { fail("setrlimit") }
        }
        let entry = try outbox.enqueue(message(0, size: size))
        print(entry.id)
    default:
        fail("unknown mode \(arguments[0])")
    }
} catch {
    fail("\(error)")
}
