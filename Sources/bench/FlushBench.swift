import Foundation
import Outbox
import SMTPTransport

// `scripts/bench flush`: 10,000 queued messages flushed to postfix's smtp-sink on loopback,
// against smtp-source sending as many to the same sink (enough that it takes about a
// second: 1,000 took it 0.06-0.12 s, too short to time against a process start), and a
// loop of msmtp runs, in one run. Also, as a floor rather than a target, libcurl's own
// pace: the same messages through SMTPTransport's session alone, with no outbox, since
// libcurl (one command, one reply at a time, the end of data on its own) is the project's
// SMTP client and sets the least a flush can take.

func benchFlush() {
    let count = quick ? 100 : 10_000
    let msmtpRuns = quick ? 5 : 50
    let rounds = quick ? 1 : 3
    do {
        let sink = try SMTPSink()
        let home = try BenchHome(port: sink.port)
        let message = home.root.appendingPathComponent("message.eml").path
        let text = "From: Jane Doe <jane@example.org>\r\nTo: joe@example.com\r\nSubject: Benchmark\r\n"
            + "Date: Thu, 01 Jan 2026 00:00:00 +0000\r\nMessage-ID: <bench@example.org>\r\nMIME-Version: 1.0\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nHello Joe,\r\nhow are you?\r\n"
        try text.write(toFile: message, atomically: true, encoding: .utf8)

        // The messages are queued once, with the outbox's own enqueue (each synced, so
        // sixteen at a time), into a template; each round's outbox is a copy of it whose
        // files are hard links (`cp -al`): the flush reads, links and renames exactly what
        // a freshly queued outbox holds, and a round is ready in seconds rather than the
        // minutes of queueing 10,000 messages one sync after another.
        let template = home.root.appendingPathComponent("outbox-template").path
        let templateOutbox = Outbox(directory: template)
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            for index in stride(from: worker, to: count, by: 16) {
                let bytes = Array(text.replacingOccurrences(of: "<bench@example.org>", with: "<bench-\(index)@example.org>").utf8)
                do {
                    try templateOutbox.enqueue(OutboxMessage(bytes: bytes, envelopeFrom: "jane@example.org", recipients: ["joe@example.com"]))
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        if let failure = failures.first { print("flush: cannot queue the messages: \(failure)"); return }

        // Rounds interleaved, median of each: a shared machine's disk and CPU drift hit
        // both programs alike.
        var oursTimes: [Double] = []
        var sourceTimes: [Double] = []
        var libcurlTimes: [Double] = []
        for _ in 0..<rounds {
            // 1. mailto-route outbox flush of the queued messages (the copy and its syncs
            //    are over before the clock starts).
            guard measure(["/bin/rm", "-rf", home.outboxDirectory]).status == 0,
                  measure(["/bin/mkdir", "-p", (home.outboxDirectory as NSString).deletingLastPathComponent]).status == 0,
                  measure(["/bin/cp", "-al", template, home.outboxDirectory]).status == 0
            else { print("flush: cannot copy the queued messages"); return }
            sync()
            // sync(2) may return with the journal's last commit still to come (the round
            // before freed thousands of blocks on a disk mounted with `discard`): a sync of
            // the outbox's directory waits for it here (about 60 ms), not the flush's first.
            let directory = open(home.outboxDirectory, O_RDONLY | O_DIRECTORY)
            if directory >= 0 {
                fsync(directory)
                close(directory)
            }
            let ours = measure([mailtoRouteRelease, "outbox", "flush"], environment: home.environment)
            let left = try Outbox(directory: home.outboxDirectory).list().count
            guard ours.status == 0, left == 0 else {
                print("flush: mailto-route outbox flush failed with status \(ours.status), \(left) left queued (see /tmp/bench-send-stderr.log)")
                return
            }
            oursTimes.append(ours.seconds)
            // The flush leaves deleting what it sent to `rm` in the background: waited for
            // here, so that it shares the disk with neither the reference nor the next round.
            waitUntilEmpty(home.outboxDirectory + "/.trash", seconds: 600)

            // 2. smtp-source: one session (-s 1) that keeps its connection (-d), as the
            //    flush does; the same message file (-F); no PIPELINING, like libcurl.
            let source = measure(["/usr/sbin/smtp-source", "-s", "1", "-d", "-m", String(count), "-f", "jane@example.org",
                                  "-t", "joe@example.com", "-F", message, "127.0.0.1:\(sink.port)"])
            guard source.status == 0 else { print("flush: smtp-source failed with status \(source.status)"); return }
            sourceTimes.append(source.seconds)

            // 3. libcurl alone: the same messages over one SMTPSession, in this process.
            libcurlTimes.append(try sessionAlone(count: count, port: sink.port, message: Array(text.utf8)))
        }
        _ = measure(["/bin/rm", "-rf", template])
        let ours = median(oursTimes), source = median(sourceTimes), libcurl = median(libcurlTimes)

        // 3. msmtp, one run per message, as a shell loop would.
        let msmtpArgv = ["/usr/bin/msmtp", "-C", "/dev/null", "--host=127.0.0.1", "--port=\(sink.port)", "--from=jane@example.org",
                         "--auth=off", "--tls=off", "joe@example.com"]
        var msmtpSeconds = 0.0
        for _ in 0..<msmtpRuns {
            let run = measure(msmtpArgv, stdinPath: message)
            guard run.status == 0 else { print("flush: msmtp failed with status \(run.status)"); return }
            msmtpSeconds += run.seconds
        }

        let oursRate = Double(count) / ours
        let sourceRate = Double(count) / source
        let msmtpRate = Double(msmtpRuns) / msmtpSeconds
        let perRound = zip(oursTimes, sourceTimes).map { String(format: "%.2f", $1 / $0) }.joined(separator: ", ")
        print("flush: mailto-route outbox flush " + Target.atLeast(0.5, "×").judge(oursRate / sourceRate, reference: "smtp-source")
            + "; " + Target.atLeast(20, "×").judge(oursRate / msmtpRate, format: "%.0f", reference: "a msmtp loop"))
        print(String(format: "flush: %d messages to smtp-sink on loopback, median of %d rounds (each round's ratio: %@): "
                     + "mailto-route outbox flush %.2f s, %.0f msg/s (one connection); smtp-source -s 1 -d -m %d %.2f s, %.0f msg/s; "
                     + "msmtp %d runs %.2f s, %.1f msg/s",
                     count, rounds, perRound, ours, oursRate, count, source, sourceRate, msmtpRuns, msmtpSeconds, msmtpRate))
        print(String(format: "flush: libcurl alone (SMTPSession, no outbox) %.2f s, %.2f× smtp-source: the flush takes %.2f× libcurl's own time",
                     libcurl, source / libcurl, ours / libcurl))
    } catch {
        print("flush: cannot run: \(error)")
    }
}

/// Seconds to send `count` copies of `message` over one SMTPSession (one libcurl handle,
/// its connection kept), as a flush's sends go, without the outbox.
private func sessionAlone(count: Int, port: Int, message: [UInt8]) throws -> Double {
    let session = try SMTPSession(SMTPServer(host: "127.0.0.1", port: port, security: .none, allowPlaintext: true))
    let started = Date()
    for _ in 0..<count {
        _ = try session.send(RawMessage(.bytes(message), envelopeFrom: "jane@example.org", recipients: ["joe@example.com"]))
    }
    return Date().timeIntervalSince(started)
}

/// Waits until `directory` is empty or gone, at most `seconds`.
private func waitUntilEmpty(_ directory: String, seconds: Double) {
    let deadline = Date().addingTimeInterval(seconds)
    while ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).isEmpty == false, Date() < deadline {
        usleep(100_000)
    }
}

/// Errors from the queueing threads, kept under a lock.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [String] = []

    func add(_ failure: String) {
        lock.lock()
        all.append(failure)
        lock.unlock()
    }

    var first: String? {
        lock.lock()
        defer { lock.unlock() }
        return all.first
    }
}
