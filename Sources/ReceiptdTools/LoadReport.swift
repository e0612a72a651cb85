/// `receiptd loadgen --json`: the enqueue summary and, with `--wait`, the verdict.
package struct LoadReport: Sendable, Codable {
    /// The enqueue phase.
    package var load: LoadSummary
    /// The outcomes, when the run was followed.
    package var wait: LoadVerdict?

    /// Creates a report.
    package init(load: LoadSummary, wait: LoadVerdict?) {
        self.load = load
        self.wait = wait
    }
}
