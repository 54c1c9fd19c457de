/// The candidate nearest to `word` by edit distance, for "did you mean" after a mistyped
/// command, option or config key; `nil` when none is near enough to be a likely slip.
///
/// The distance is Damerau–Levenshtein's optimal string alignment (an insertion, a
/// deletion, a substitution or a swap of two neighbours each count 1, so `sned` is one
/// slip from `send`), over Unicode scalars, with case ignored (`Host` is nearest `host`). Near enough: at most a third
/// of the longer word's length, and at least one slip always counts. On a tie the
/// candidate first in alphabetical order wins, so that a `Set` gives the same answer
/// every run.
public func closest<Candidates: Sequence<String>>(to word: String, among candidates: Candidates) -> String? {
    let typed = Array(word.lowercased().unicodeScalars)
    var best: (candidate: String, distance: Int)?
    for candidate in candidates where candidate != word {
        let other = Array(candidate.lowercased().unicodeScalars)
        let distance = editDistance(typed, other)
        // 0 is a difference of case only: key files and options are case-sensitive.
        guard distance <= max(1, max(typed.count, other.count) / 3) else { continue }
        if let current = best, (current.distance, current.candidate) <= (distance, candidate) { continue }
        best = (candidate, distance)
    }
    return best?.candidate
}

/// Optimal string alignment distance between `a` and `b`, in O(|a|·|b|) time.
private func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    // Three rows: the one before the previous is what a swap of neighbours builds on.
    var older = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], older[j - 2] + 1)
            }
        }
        (older, previous, current) = (previous, current, older)
    }
    return previous[b.count]
}
