/// Google's refund answers: `orders.reviewrefund` on the disputed order.
struct GoogleRefundReviewChannel: RefundAnswerChannel {
    let client: GooglePlayClient
    let sampleContentProvided: Bool

    var store: Store { .google }

    func prepare(_ owed: OwedRefundAnswer) -> RefundAnswerCall {
        RefundAnswerCall(body: GoogleRefundReview(owed, sampleContentProvided: sampleContentProvided).json)
    }

    func send(_ call: RefundAnswerCall, for owed: OwedRefundAnswer) async -> RefundAnswerOutcome {
        do {
            let answer = try await client.reviewRefund(orderID: owed.transactionID, body: call.body)
            return GoogleRefundReview.outcome(status: answer.status, message: answer.errorMessage)
        } catch {
            return .retry("Google Play orders.reviewrefund: \(error)", notBefore: nil)
        }
    }
}
