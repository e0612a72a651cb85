import Foundation
import Synchronization

/// Bookkeeping of the App Store Server API shared by every connection: the
/// registered transactions with their call counts, the registered histories,
/// the call log and the rate limiter's windows, one an endpoint. One lock, held for a few dictionary and array operations.
final class ServerAPILedger: Sendable {
    /// What the ledger decided when a call arrived, before any answer is built.
    struct Admission {
        /// Position of the call in the log, to report its outcome later.
        let recordIndex: Int
        /// What the call gets.
        let verdict: Verdict
    }

    /// The outcome of a call's checks, in the order they are made.
    enum Verdict {
        /// The bearer token was refused.
        case unauthorized
        /// Over the configured rate; `retryAfterMilliseconds` is the UNIX time to come back at.
        case rateLimited(retryAfterMilliseconds: Int64)
        /// No registered transaction (or history) with that id.
        case unknown
        /// A registered transaction, with this call's script step if it has one.
        case registered(SignedTransactionPayload, step: ScriptStep?)
        /// A history call for an id in a registered history: all of that history, in registration order.
        case history([SignedTransactionPayload])
        /// A Get All Subscription Statuses call past the checks: the subscriptions answer it.
        case subscriptionStatuses
    }

    private struct TransactionEntry {
        var payload: SignedTransactionPayload
        var script: [ScriptStep]
        var calls = 0
    }

    private struct State {
        var transactions: [String: TransactionEntry] = [:]
        /// Each transaction id of a registered history, mapped to all of that history.
        var histories: [String: [SignedTransactionPayload]] = [:]
        var records: [RecordedServerAPIRequest] = []
        /// Arrival times of the calls let through in the last second, oldest first, by endpoint: Apple limits each
        /// endpoint on its own.
        var recentAdmissions: [ServerAPIEndpoint: [ContinuousClock.Instant]] = [:]
    }

    private let state = Mutex(State())
    private let rateLimit: Int?

    init(rateLimit: Int?) {
        self.rateLimit = rateLimit
    }

    /// Registers (or replaces, resetting its call count) a transaction and its script.
    func register(_ payload: SignedTransactionPayload, script: [ScriptStep]) {
        state.withLock { $0.transactions[payload.transactionId] = TransactionEntry(payload: payload, script: script) }
    }

    /// Registers a customer's history: a history call for any of its transaction ids answers all of them,
    /// replacing what an earlier history said for those ids.
    func register(history: [SignedTransactionPayload]) {
        state.withLock { state in
            for payload in history { state.histories[payload.transactionId] = history }
        }
    }

    /// Logs a call and decides it: bearer, then rate limit, then the transaction and its script (or the history).
    ///
    /// Only calls that pass the bearer check and the rate limit count towards the rate and a script.
    func admit(_ request: RecordedServerAPIRequest) -> Admission {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.records.append(request)
            let recordIndex = state.records.count - 1
            guard request.bearerFailure == nil else {
                return Admission(recordIndex: recordIndex, verdict: .unauthorized)
            }
            if let rateLimit {
                let windowStart = now - .seconds(1)
                var recent = state.recentAdmissions[request.endpoint, default: []]
                recent.removeAll { $0 <= windowStart }
                defer { state.recentAdmissions[request.endpoint] = recent }
                guard recent.count < rateLimit else {
                    let retryAfter = Int64((request.receivedAt.timeIntervalSince1970 + 1) * 1000)
                    return Admission(
                        recordIndex: recordIndex,
                        verdict: .rateLimited(retryAfterMilliseconds: retryAfter)
                    )
                }
                recent.append(now)
            }
            if request.endpoint == .subscriptionStatuses {
                return Admission(recordIndex: recordIndex, verdict: .subscriptionStatuses)
            }
            if request.endpoint == .transactionHistory {
                let history = state.histories[request.transactionID]
                return Admission(recordIndex: recordIndex, verdict: history.map(Verdict.history) ?? .unknown)
            }
            guard var entry = state.transactions[request.transactionID] else {
                return Admission(recordIndex: recordIndex, verdict: .unknown)
            }
            let step = entry.calls < entry.script.count ? entry.script[entry.calls] : nil
            entry.calls += 1
            state.transactions[request.transactionID] = entry
            return Admission(recordIndex: recordIndex, verdict: .registered(entry.payload, step: step))
        }
    }

    /// Records what was written for a call (`nil` status for a connection closed by the stand-in).
    func recordAnswer(at index: Int, httpStatus: Int?, errorCode: Int?) {
        state.withLock { state in
            state.records[index].httpStatus = httpStatus
            state.records[index].errorCode = errorCode
        }
    }

    /// A copy of the log, in arrival order.
    func records() -> [RecordedServerAPIRequest] {
        state.withLock { $0.records }
    }
}
