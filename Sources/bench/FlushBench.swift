import Foundation
import Outbox

// `scripts/bench flush`: 1,000 queued messages flushed to postfix's smtp-sink
// on loopback, against smtp-source sending 1,000 messages to the same sink and a loop of
// msmtp runs, in one run.

func benchFlush() {
    let count = quick ? 100 : 1_000
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

        // Rounds interleaved, median of each: a shared machine's disk and CPU drift hit
        // both programs alike.
        var oursTimes: [Double] = []
        var sourceTimes: [Double] = []
        for _ in 0..<rounds {
            // 1. mailto-route outbox flush of 1,000 queued messages (queueing is not timed,
            //    and its writes and syncs are over before the clock starts).
            let outbox = Outbox(directory: home.outboxDirectory)
            for index in 0..<count {
                let bytes = Array(text.replacingOccurrences(of: "<bench@example.org>", with: "<bench-\(index)@example.org>").utf8)
                try outbox.enqueue(OutboxMessage(bytes: bytes, envelopeFrom: "jane@example.org", recipients: ["joe@example.com"]))
            }
            sync()
            let ours = measure([mailtoRouteRelease, "outbox", "flush"], environment: home.environment)
            let left = try outbox.list().count
            guard ours.status == 0, left == 0 else {
                print("flush: mailto-route outbox flush failed with status \(ours.status), \(left) left queued (see /tmp/bench-send-stderr.log)")
                return
            }
            oursTimes.append(ours.seconds)

            // 2. smtp-source: one session (-s 1) that keeps its connection (-d), as the
            //    flush does; the same message file (-F); no PIPELINING, like libcurl.
            let source = measure(["/usr/sbin/smtp-source", "-s", "1", "-d", "-m", String(count), "-f", "jane@example.org",
                                  "-t", "joe@example.com", "-F", message, "127.0.0.1:\(sink.port)"])
            guard source.status == 0 else { print("flush: smtp-source failed with status \(source.status)"); return }
            sourceTimes.append(source.seconds)
        }
        let ours = median(oursTimes), source = median(sourceTimes)

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
        print(String(format: "flush: mailto-route %.0f msg/s; smtp-source %.0f msg/s (ratio %.2f, target >= 0.5); msmtp loop %.1f msg/s (ratio %.1f, target >= 20)",
                     oursRate, sourceRate, oursRate / sourceRate, msmtpRate, oursRate / msmtpRate))
        print(String(format: "flush: %d messages to smtp-sink on loopback, median of %d: mailto-route outbox flush %.2f s (one connection); smtp-source -s 1 -d -m %d %.2f s; msmtp %d runs %.2f s",
                     count, rounds, ours, count, source, msmtpRuns, msmtpSeconds))
    } catch {
        print("flush: cannot run: \(error)")
    }
}
