import Foundation
import TestSupport

// `scripts/bench books`: the compose sheet's completion, the address books opened and asked
// as it asks them, on Debian's real evolution-data-server.

/// `address-book-probe` (beside the bench) on a private bus with evolution-data-server and a
/// book of 1,004 contacts: opening the books cold (the bus starts EDS, as at the first
/// completion of a session without Evolution) and warm (EDS running, as in a desktop
/// session), and each prefix's query, median of 20 (the first left out). What a person
/// waits for between typing and seeing a name; no target yet.
func benchBooks() {
    let probe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("address-book-probe").path
    let prefixes = ["asa", "Person 12", "p", "zz"]
    do {
        let eds = try EvolutionDataServer()
        defer { eds.stop() }
        let cold = try run(probe, [], environment: eds.environment)
        let many = (0..<1000).map { EvolutionDataServer.Person("Person \($0) Example", ["person\($0)@example.org"]) }
        try eds.seed([.init("Personal", contacts: [
            .init("Asa Berg", ["asa@example.org", "asa.berg@work.example"]), .init("Bo Lind", ["bo@example.org"]),
            .init("Ærle Østberg", ["aerle@example.dk"]), .init("No Mail", []),
        ] + many)])
        let warm = try run(probe, ["--repeat", "20"] + prefixes, environment: eds.environment)
        guard cold.status == 0, warm.status == 0,
              let coldObject = try JSONSerialization.jsonObject(with: Data(cold.stdout.utf8)) as? [String: Any],
              let warmObject = try JSONSerialization.jsonObject(with: Data(warm.stdout.utf8)) as? [String: Any],
              coldObject["opened"] as? Bool == true, warmObject["opened"] as? Bool == true,
              let coldOpen = coldObject["openMs"] as? Double, let warmOpen = warmObject["openMs"] as? Double,
              let queries = warmObject["queries"] as? [[String: Any]]
        else {
            FileHandle.standardError.write(Data("bench: books: address-book-probe did not open the books:\n\(cold)\n\(warm)\n".utf8))
            exit(1)
        }
        let times = queries.map { query in
            String(format: "\"%@\" %.1f ms", query["prefix"] as? String ?? "", median(Array((query["ms"] as? [Double] ?? []).dropFirst())))
        }
        print(String(format: "books: open %.1f ms warm, %.1f ms cold; ", warmOpen, coldOpen)
            + "a query of 1,004 contacts: \(times.joined(separator: ", ")) (medians; no target)")
    } catch {
        FileHandle.standardError.write(Data("bench: books: \(error)\n".utf8))
        exit(1)
    }
}
