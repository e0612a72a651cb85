import Foundation
import NIOCore

/// Decides the answer to one verifyReceipt call, following the documented
/// order of checks (see ``SyntheticReceipt``). Pure apart from the ledger.
struct AnswerPlanner: Sendable {
    let configuration: AppStoreStandIn.Configuration
    let ledger: RequestLedger

    /// Logs the call and plans its answer.
    func plan(environment: RecordedRequest.Environment, body: ByteBuffer?) -> PlannedAnswer {
        let request = VerifyReceiptRequest(body: body)
        let admission = ledger.admit(
            RecordedRequest(
                environment: environment,
                password: request.password,
                excludeOldTransactions: request.excludeOldTransactions,
                receiptData: request.receiptData ?? ""
            ),
            receiptData: request.receiptData
        )
        let receipt = admission.cachedReceipt ?? request.receiptData.flatMap(decodeAndRemember)
        var answer = PlannedAnswer(
            reply: .closeConnection,
            delayMilliseconds: admission.latencyMilliseconds + (receipt?.delayMilliseconds ?? 0),
            recordIndex: admission.recordIndex
        )

        if admission.duringOutage {
            answer.reply = .emptyHTTP(status: 503, retryAfter: nil)
        } else if let fault = admission.faultDraw.flatMap(injectedFault) {
            answer.reply = fault
        } else if request.receiptData == nil {
            answer.reply = appleStatus(21000)
        } else if let receipt {
            let step = admission.callNumber < receipt.script.count ? receipt.script[admission.callNumber] : nil
            answer.delayMilliseconds += max(0, step?.delayMilliseconds ?? 0)
            answer.reply =
                step.flatMap(scriptedReply)
                ?? checkedReply(receipt, request, environment, treatAsSandbox: admission.treatAsSandbox)
        } else {
            answer.reply = appleStatus(21002)
        }
        return answer
    }

    /// Parses a receipt seen for the first time and caches it for its next calls.
    private func decodeAndRemember(_ receiptData: String) -> DecodedReceipt? {
        guard let receipt = DecodedReceipt(receiptData: receiptData) else { return nil }
        ledger.remember(receipt, for: receiptData)
        return receipt
    }

    /// The configured random faults; the rates stack in the order reset, 503, 21005, timeout.
    private func injectedFault(forDraw draw: Double) -> PlannedAnswer.Reply? {
        var threshold = configuration.resetRate
        if draw < threshold { return .closeConnection }
        threshold += configuration.unavailableRate
        if draw < threshold { return .emptyHTTP(status: 503, retryAfter: nil) }
        threshold += configuration.status21005Rate
        if draw < threshold { return appleStatus(21005) }
        threshold += configuration.timeoutRate
        if draw < threshold { return .neverAnswer }
        return nil
    }

    /// A script step's own answer; `nil` when the step only delays.
    private func scriptedReply(_ step: ScriptStep) -> PlannedAnswer.Reply? {
        if step.reset == true { return .closeConnection }
        if let status = step.http { return .emptyHTTP(status: status, retryAfter: step.retryAfter) }
        if let raw = step.raw { return .html(raw) }
        if let status = step.status {
            return .appleJSON(status: status, body: AppleAnswerBody.status(status, isRetryable: step.isRetryable))
        }
        return nil
    }

    /// Shared secret, then environment, then the receipt's own status. A receipt drawn as a
    /// sandbox one (`sandboxRate`) belongs to the sandbox whatever its JSON says.
    private func checkedReply(
        _ receipt: DecodedReceipt,
        _ request: VerifyReceiptRequest,
        _ environment: RecordedRequest.Environment,
        treatAsSandbox: Bool
    ) -> PlannedAnswer.Reply {
        if let secret = configuration.sharedSecret, request.password != secret {
            return appleStatus(21004, environment: environment)
        }
        let home = treatAsSandbox ? .sandbox : receipt.environment
        if home != environment {
            return appleStatus(home == .sandbox ? 21007 : 21008)
        }
        guard receipt.status == 0 else {
            return appleStatus(receipt.status, environment: environment, isRetryable: receipt.isRetryable)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return .appleJSON(
            status: 0,
            body: AppleAnswerBody.verified(
                receipt,
                environment: environment,
                nowMilliseconds: now,
                withSharedSecret: request.password != nil
            )
        )
    }

    private func appleStatus(
        _ status: Int,
        environment: RecordedRequest.Environment? = nil,
        isRetryable: Bool? = nil
    ) -> PlannedAnswer.Reply {
        .appleJSON(
            status: status,
            body: AppleAnswerBody.status(status, environment: environment, isRetryable: isRetryable)
        )
    }
}
