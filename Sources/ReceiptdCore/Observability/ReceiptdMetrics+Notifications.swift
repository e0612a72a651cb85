import CoreMetrics

extension ReceiptdMetrics.Name {
    /// Counter by `store` and `result` (`sent`, `retry`, `failed`, `unconfirmed`): calls answering refund requests (Apple's Send
    /// Consumption Information, Google's `orders.reviewrefund`).
    package static let refundAnswerCalls = "receiptd_refund_answer_calls_total"
    /// Counter by `store`: refund requests received (Apple's consumption requests, Google's chargeback reviews).
    package static let refundRequests = "receiptd_refund_requests_total"
    /// Counter by `store`, `answered_by` (`game`, `policy`, `operator`) and `preference`: answers a store took.
    package static let refundRequestsAnswered = "receiptd_refund_requests_answered_total"
    /// Counter by `store`: requests that reached their deadline unanswered.
    package static let refundRequestsExpired = "receiptd_refund_requests_expired_total"
}

extension ReceiptdMetrics {
    /// What one call answering a refund request came to.
    package enum RefundAnswerCallResult: String, Sendable {
        /// The store took it.
        case sent
        /// A transient failure: it is retried.
        case retry
        /// The store refused it for good.
        case failed
        /// The one more call after a call that got no answer was not confirmed either: the request ends
        /// `unconfirmed`.
        case unconfirmed
    }

    /// One call answering a refund request to `store` ended with `result`.
    package func refundAnswerCall(store: String, result: RefundAnswerCallResult) {
        Counter(
            label: Name.refundAnswerCalls,
            dimensions: [("store", store), ("result", result.rawValue)],
            factory: factory
        ).increment()
    }

    /// `store` asked about a refund.
    package func refundRequestReceived(store: String) {
        Counter(label: Name.refundRequests, dimensions: [("store", store)], factory: factory).increment()
    }

    /// `store` took the answer `answeredBy` gave, with `preference`.
    package func refundRequestAnswered(store: String, answeredBy: String, preference: String) {
        Counter(
            label: Name.refundRequestsAnswered,
            dimensions: [("store", store), ("answered_by", answeredBy), ("preference", preference)],
            factory: factory
        ).increment()
    }

    /// A request of `store` reached its deadline unanswered.
    package func refundRequestExpired(store: String) {
        Counter(label: Name.refundRequestsExpired, dimensions: [("store", store)], factory: factory).increment()
    }
}
