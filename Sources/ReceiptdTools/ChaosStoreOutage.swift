import FakeAppStore
import Foundation
import ReceiptdCore

/// The chaos run's store outage: the stand-in Google Play answers 503 to every purchase lookup from the start.
/// Once the database phases are over, a batch of App Store orders is enqueued; they must all settle while Google
/// is still out (each daemon pauses only its Google jobs), and then Google comes back.
struct ChaosStoreOutage {
    private enum Phase {
        case waiting
        case batchEnqueued(at: ContinuousClock.Instant)
        case over
    }

    /// How long the batch may take to settle while Google is out, kills and lease reclaims included.
    static let limit = Duration.seconds(20)

    private let google: GooglePlayStandIn
    private let batch: [ChaosOrders.Enqueue]
    private let say: @Sendable (String) -> Void
    private var phase: Phase
    /// The batch's orders that settled while Google was out.
    private(set) var settled = 0
    /// What went wrong, if anything.
    private(set) var violations: [String] = []

    /// Starts the outage now, unless `batch` is empty (the phase is off).
    init(google: GooglePlayStandIn, batch: [ChaosOrders.Enqueue], say: @escaping @Sendable (String) -> Void) {
        self.google = google
        self.batch = batch
        self.say = say
        phase = batch.isEmpty ? .over : .waiting
        if !batch.isEmpty { google.failPurchaseLookups(status: 503) }
    }

    /// Whether Google is back (or never went out).
    var isOver: Bool {
        if case .over = phase { return true }
        return false
    }

    /// One step of the run's loop: enqueues the batch once `ready` (the database phases are over), ends the outage
    /// when the batch has settled or the limit passed.
    mutating func step(ready: Bool, connection: PostgresConnection,
                       enqueue: (ChaosOrders.Enqueue) async throws -> Void) async throws {
        switch phase {
        case .over:
            return
        case .waiting:
            guard ready else { return }
            for call in batch { try await enqueue(call) }
            say("Google Play out (503): enqueued \(batch.count) App Store orders that must settle meanwhile")
            phase = .batchEnqueued(at: .now)
        case .batchEnqueued(let at):
            settled = try await connection.execute(
                "SELECT count(*) AS n FROM iap.orders WHERE order_id = ANY (string_to_array($1, ',')) AND outcome IS NOT NULL",
                [batch.map(\.orderID).joined(separator: ",")]).first?.int("n") ?? 0
            let late = ContinuousClock.now - at > Self.limit
            guard settled == batch.count || late else { return }
            if late {
                violations.append("while Google Play was out, \(settled) of \(batch.count) App Store orders settled within \(Self.limit)")
            }
            google.failPurchaseLookups(status: nil)
            say("Google Play back after \(settled) of \(batch.count) App Store orders settled while it was out")
            phase = .over
        }
    }
}
