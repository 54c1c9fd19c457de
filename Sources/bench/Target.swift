import Foundation

// Every figure `make bench` prints carries its target beside it, with whether it is met,
// so that one run says where each target stands: "0.62× smtp-source (target ≥ 0.5×):
// met". The targets are docs/layout.md's (Benchmarks); a figure with none says so.

/// What a figure must reach.
struct Target {
    enum Bound {
        /// At least the value (a rate, a ratio of rates).
        case atLeast
        /// At most the value (a time, a size, a ratio of times).
        case atMost
    }

    let bound: Bound
    let value: Double
    /// Written after each number ("×", " ms", " MB").
    let unit: String

    static func atLeast(_ value: Double, _ unit: String) -> Target { Target(bound: .atLeast, value: value, unit: unit) }
    static func atMost(_ value: Double, _ unit: String) -> Target { Target(bound: .atMost, value: value, unit: unit) }

    func isMet(by figure: Double) -> Bool {
        switch bound {
        case .atLeast: figure >= value
        case .atMost: figure <= value
        }
    }

    /// `figure` with its unit, then the target and where it stands:
    /// "0.62× smtp-source (target ≥ 0.5×): met".
    func judge(_ figure: Double, format: String = "%.2f", reference: String = "") -> String {
        let sign = bound == .atLeast ? "≥" : "≤"
        let against = reference.isEmpty ? "" : " " + reference
        return String(format: format, figure) + unit + against
            + " (target \(sign) \(trimmed(value))\(unit)): " + (isMet(by: figure) ? "met" : "NOT MET")
    }

    private func trimmed(_ number: Double) -> String {
        number == number.rounded() ? String(Int(number)) : String(number)
    }
}

/// A figure that has no target: said as such, so that none is taken for one that is met.
func untargeted(_ figure: Double, format: String = "%.2f", unit: String = "×", reference: String) -> String {
    String(format: format, figure) + unit + " " + reference + " (no target)"
}
