/// `receiptd loadgen --json`: the enqueue summary and, with `--wait`, the verdict.
public struct LoadReport: Sendable, Codable {
    /// The enqueue phase.
    public var load: LoadSummary
    /// The outcomes, when the run was followed.
    public var wait: LoadVerdict?

    /// Creates a report.
    public init(load: LoadSummary, wait: LoadVerdict?) {
        self.load = load
        self.wait = wait
    }
}
