import CoreMetrics

extension ReceiptdMetrics.Name {
    /// Counter by `result` (`sent`, `retry`, `failed`): Send Consumption Information calls.
    package static let consumptionAnswers = "receiptd_consumption_answers_total"
}

extension ReceiptdMetrics {
    /// What one Send Consumption Information call came to.
    package enum ConsumptionAnswerResult: String, Sendable {
        /// Apple accepted it (202).
        case sent
        /// A transient failure: it is retried.
        case retry
        /// Apple refused it for good.
        case failed
    }

    /// One Send Consumption Information call ended with `result`.
    package func consumptionAnswer(_ result: ConsumptionAnswerResult) {
        Counter(label: Name.consumptionAnswers, dimensions: [("result", result.rawValue)], factory: factory)
            .increment()
    }
}
