import Foundation

/// Shares of the kinds of orders a load run makes, e.g. `full=70,partial=10,no_in_app=10,replay=5,replace=5`.
///
/// Kinds are interleaved evenly and deterministically (smooth weighted round-robin), so any prefix
/// of a run already has about the asked shares.
package struct LoadMix: Sendable, Equatable, CustomStringConvertible {
    /// What an order's receipt does, and so which outcome it must get.
    package enum Kind: String, CaseIterable, Sendable, Codable {
        /// Pays the order: outcome `full`.
        case full
        /// Pays one unit of two: outcome `partial`.
        case partial
        /// An empty `in_app`: outcome `no_in_app`.
        case noInApp = "no_in_app"
        /// Two users' orders carry the same transaction: one `full`, one `unmatched` (two orders).
        case replay
        /// A newer receipt follows shortly after the first: outcome `full`.
        case replace
        /// A StoreKit 2 signed transaction, verified offline: outcome `full`.
        case transaction
        /// A Google Play purchase token (the stand-in's synthetic kind): outcome `full`, acknowledged.
        case google
    }

    /// Weight per kind; missing kinds weigh 0.
    package let weights: [Kind: Int]
    private let pattern: [Kind]

    /// The default mix.
    package static let standard = LoadMix(checked: [.full: 70, .partial: 10, .noInApp: 10, .replay: 5, .replace: 5])

    /// Parses `kind=weight` pairs separated by commas; throws a ``LoadError`` that names the bad part.
    package init(parsing text: String) throws {
        var weights: [Kind: Int] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "=", omittingEmptySubsequences: false)
            let known = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            guard pieces.count == 2, let kind = Kind(rawValue: pieces[0].trimmingCharacters(in: .whitespaces)) else {
                throw LoadError("mix: '\(part)' is not KIND=WEIGHT with KIND one of \(known)")
            }
            guard let weight = Int(pieces[1].trimmingCharacters(in: .whitespaces)), weight >= 0 else {
                throw LoadError("mix: weight of \(kind.rawValue) must be a whole number ≥ 0, got '\(pieces[1])'")
            }
            guard weights[kind] == nil else { throw LoadError("mix: \(kind.rawValue) given twice") }
            weights[kind] = weight
        }
        guard weights.values.reduce(0, +) > 0 else { throw LoadError("mix: the weights add up to 0") }
        self.init(checked: weights)
    }

    private init(checked weights: [Kind: Int]) {
        let kept = weights.filter { $0.value > 0 }
        let kinds = Kind.allCases.filter { kept[$0] != nil }
        // Smooth weighted round-robin: each step the kind furthest ahead in credit goes next.
        let total = kept.values.reduce(0, +)
        var credit: [Kind: Int] = [:]
        var pattern: [Kind] = []
        pattern.reserveCapacity(total)
        for _ in 0..<total {
            for kind in kinds { credit[kind, default: 0] += kept[kind] ?? 0 }
            guard let next = kinds.max(by: { credit[$0, default: 0] < credit[$1, default: 0] }) else { break }
            credit[next, default: 0] -= total
            pattern.append(next)
        }
        self.weights = kept
        self.pattern = pattern
    }

    /// The kind of the `slot`-th order of a run.
    package func kind(at slot: Int) -> Kind {
        pattern[slot % pattern.count]
    }

    /// Weight over the sum of weights.
    package func share(of kind: Kind) -> Double {
        Double(weights[kind] ?? 0) / Double(pattern.count)
    }

    /// Back in `kind=weight` form.
    package var description: String {
        Kind.allCases.compactMap { kind in weights[kind].map { "\(kind.rawValue)=\($0)" } }.joined(separator: ",")
    }

    /// Equal when the weights are.
    package static func == (lhs: LoadMix, rhs: LoadMix) -> Bool { lhs.weights == rhs.weights }
}
