import Foundation

/// Apple's refund answers: Send Consumption Information v2 to the request's environment, through the App Store
/// Server API's shared pacing; Apple takes it with 202.
struct AppleConsumptionChannel: RefundAnswerChannel {
    let client: ServerAPIClient
    let sampleContentProvided: Bool

    var store: Store { .apple }

    func prepare(_ owed: OwedRefundAnswer) -> RefundAnswerCall {
        let information = ConsumptionInformation(
            deliveredAndGranted: owed.deliveredAndGranted,
            kind: owed.kind,
            consumed: owed.consumed,
            preference: owed.preference,
            sampleContentProvided: sampleContentProvided
        )
        return RefundAnswerCall(body: information.json, deliveryStatus: information.deliveryStatus)
    }

    func send(_ call: RefundAnswerCall, for owed: OwedRefundAnswer) async -> RefundAnswerOutcome {
        let outcome = await client.sendConsumption(
            Data(call.body.utf8),
            transactionID: owed.transactionID,
            environment: owed.environment
        )
        if outcome.unanswered, case .verdict(.retry(let failure)) = outcome.answer {
            return .unanswered(failure.reason)
        }
        switch outcome.answer {
        case .found: return .sent
        case .verdict(.postpone(let delay, _)): return .postpone(delay)
        case .verdict(.retry(let failure)): return .retry(failure.reason, notBefore: failure.notBefore)
        case .verdict(.reject(let why)): return .refused(why)
        case .verdict: return .refused("\(outcome.label): unexpected answer")
        }
    }
}
