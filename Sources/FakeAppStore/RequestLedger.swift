import Foundation
import Synchronization

/// Bookkeeping shared by every connection: the call log, per-receipt call
/// counts with their parsed receipts, and the seeded generator.
///
/// Each call takes the lock twice (on arrival and on its outcome) and holds
/// it only for an append, a dictionary lookup and a few random draws.
final class RequestLedger: Sendable {
    /// What the ledger hands back when a call arrives.
    struct Admission {
        /// Position of the call in the log, to report its outcome later.
        let recordIndex: Int
        /// 0-based number of this call for its receipt-data string.
        let callNumber: Int
        /// The receipt parsed by an earlier call, if any.
        let cachedReceipt: DecodedReceipt?
        /// Uniform `0 ..< 1` draw for the configured fault rates; `nil` when all rates are zero.
        let faultDraw: Double?
        /// Configured latency for this call.
        let latencyMilliseconds: Int
        /// True while a simulated outage is on: the call is answered 503.
        let duringOutage: Bool
        /// True when the receipt was drawn as a sandbox receipt (see `sandboxRate`).
        let treatAsSandbox: Bool
    }

    private struct ReceiptEntry {
        var calls = 0
        var decoded: DecodedReceipt?
        /// Drawn once, at the receipt's first call, so both paths agree about it.
        var treatAsSandbox = false

        /// Counts one more call, returning the count before it and the cached parse.
        mutating func countCall() -> (callNumber: Int, decoded: DecodedReceipt?) {
            defer { calls += 1 }
            return (calls, decoded)
        }
    }

    private struct State {
        var records: [RecordedRequest] = []
        var receipts: [String: ReceiptEntry] = [:]
        var generator: SplitMix64
        var outage = false
    }

    private let state: Mutex<State>
    private let latency: AppStoreStandIn.Latency
    private let drawsFaults: Bool
    private let sandboxRate: Double

    /// Creates an empty ledger drawing from the configuration's seed.
    init(configuration: AppStoreStandIn.Configuration) {
        state = Mutex(State(generator: SplitMix64(seed: configuration.seed)))
        latency = configuration.latency
        drawsFaults =
            configuration.resetRate > 0 || configuration.unavailableRate > 0
            || configuration.status21005Rate > 0 || configuration.timeoutRate > 0
        sandboxRate = configuration.sandboxRate
    }

    /// Logs a call, counts it for its receipt (when it has one) and makes its draws.
    func admit(_ request: RecordedRequest, receiptData: String?) -> Admission {
        state.withLock { state in
            var request = request
            var callNumber = 0
            var cachedReceipt: DecodedReceipt?
            var treatAsSandbox = false
            if let receiptData {
                if state.receipts.index(forKey: receiptData) == nil {
                    var entry = ReceiptEntry()
                    entry.treatAsSandbox = sandboxRate > 0 && state.generator.nextUnitInterval() < sandboxRate
                    state.receipts[receiptData] = entry
                }
                if let index = state.receipts.index(forKey: receiptData) {
                    (callNumber, cachedReceipt) = state.receipts.values[index].countCall()
                    treatAsSandbox = state.receipts.values[index].treatAsSandbox
                    // Share the key's storage: load tests log millions of calls of a few receipts.
                    request.receiptData = state.receipts.keys[index]
                }
            }
            state.records.append(request)
            let faultDraw = drawsFaults ? state.generator.nextUnitInterval() : nil
            let latencyMilliseconds = latency.draw(using: &state.generator)
            return Admission(
                recordIndex: state.records.count - 1,
                callNumber: callNumber,
                cachedReceipt: cachedReceipt,
                faultDraw: faultDraw,
                latencyMilliseconds: latencyMilliseconds,
                duringOutage: state.outage,
                treatAsSandbox: treatAsSandbox
            )
        }
    }

    /// Starts or ends a simulated outage.
    func setOutage(_ on: Bool) {
        state.withLock { $0.outage = on }
    }

    /// Keeps a parsed receipt so later calls with the same string skip parsing.
    func remember(_ receipt: DecodedReceipt, for receiptData: String) {
        state.withLock { $0.receipts[receiptData]?.decoded = receipt }
    }

    /// Records what was written for a call (`nil`s for a connection closed by the stand-in).
    func recordAnswer(at index: Int, appleStatus: Int?, httpStatus: Int?) {
        state.withLock { state in
            state.records[index].answeredStatus = appleStatus
            state.records[index].httpStatus = httpStatus
        }
    }

    /// Records that the client went away before the call was answered.
    func recordAbort(at index: Int) {
        let now = Date()
        state.withLock { state in
            state.records[index].abortedByClient = true
            state.records[index].abortedAt = now
        }
    }

    /// A copy of the log, in arrival order.
    func records() -> [RecordedRequest] {
        state.withLock { $0.records }
    }
}
