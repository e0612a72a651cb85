extension AppStoreStandIn.Latency {
    /// The accepted forms, for error messages.
    package static let specificationFormats = "fixed:MS, uniform:MIN-MAX or lognormal:MEDIAN,P99 (milliseconds)"

    /// Parses a command-line latency: `fixed:MS`, `uniform:MIN-MAX` or `lognormal:MEDIAN,P99`.
    ///
    /// `nil` for anything else, including negative numbers, `MIN > MAX` and `P99 < MEDIAN`.
    package init?(specification: String) {
        guard let colon = specification.firstIndex(of: ":") else { return nil }
        let kind = specification[..<colon].lowercased()
        let value = specification[specification.index(after: colon)...]
        switch kind {
        case "fixed":
            guard let milliseconds = Int(value), milliseconds >= 0 else { return nil }
            self = .fixed(milliseconds: milliseconds)
        case "uniform":
            let bounds = value.split(separator: "-", omittingEmptySubsequences: false).compactMap { Int($0) }
            guard bounds.count == 2, bounds[0] >= 0, bounds[0] <= bounds[1] else { return nil }
            self = .uniform(minMilliseconds: bounds[0], maxMilliseconds: bounds[1])
        case "lognormal":
            let numbers = value.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }
            guard numbers.count == 2, numbers[0] > 0, numbers[1] >= numbers[0], numbers[1].isFinite else { return nil }
            self = .logNormal(medianMilliseconds: numbers[0], p99Milliseconds: numbers[1])
        default:
            return nil
        }
    }
}
