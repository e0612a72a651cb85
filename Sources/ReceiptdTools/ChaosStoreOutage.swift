import FakeAppStore
import Foundation
import ReceiptdCore

/// The chaos run's store outage: the stand-in Google Play answers 503 to every purchase lookup from the start.
/// Once the database phases are over and only Google jobs are left, the run stops killing daemons for a while:
/// the Google jobs go on failing long enough that every daemon's Google breaker opens (before per-API health,
/// the one breaker of each daemon then paused every job). Then a batch of App Store orders is enqueued; they
/// must all settle while Google is still out. Then Google comes back and the kills resume.
struct ChaosStoreOutage {
    private enum Phase {
        case waiting
        case quiet(since: ContinuousClock.Instant)
        case batchEnqueued(at: ContinuousClock.Instant)
        case over
    }

    /// How long only Google jobs fail, with no daemon killed, before the batch is enqueued.
    static let quiet = Duration.seconds(2)
    /// How long the batch may take to settle while Google is out; they take well under a second when nothing
    /// holds them back.
    static let limit = Duration.seconds(10)

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

    /// Whether the run must not kill daemons now: from the quiet time until Google is back.
    var holdsKills: Bool {
        switch phase {
        case .quiet, .batchEnqueued: true
        case .waiting, .over: false
        }
    }

    /// One step of the run's loop: once `ready` (the database phases are over) and only Google jobs are open,
    /// holds the kills for the quiet time, enqueues the batch, and ends the outage when the batch has settled
    /// or the limit passed.
    mutating func step(
        ready: Bool,
        connection: PostgresConnection,
        enqueue: (ChaosOrders.Enqueue) async throws -> Void
    ) async throws {
        switch phase {
        case .over:
            return
        case .waiting:
            guard ready else { return }
            let others = try await connection.execute(
                "SELECT count(*) AS n FROM iap.jobs WHERE state IN ('pending', 'running') AND kind <> 'google_purchase'"
            ).first?.int("n")
            guard others == 0 else { return }
            phase = .quiet(since: .now)
        case .quiet(let since):
            guard ContinuousClock.now - since >= Self.quiet else { return }
            for call in batch { try await enqueue(call) }
            say("Google Play out (503): enqueued \(batch.count) App Store orders that must settle meanwhile")
            phase = .batchEnqueued(at: .now)
        case .batchEnqueued(let at):
            settled =
                try await connection.execute(
                    "SELECT count(*) AS n FROM iap.orders WHERE order_id = ANY (string_to_array($1, ',')) AND outcome IS NOT NULL",
                    [batch.map(\.orderID).joined(separator: ",")]
                ).first?.int("n") ?? 0
            let late = ContinuousClock.now - at > Self.limit
            guard settled == batch.count || late else { return }
            if late {
                violations.append(
                    "while Google Play was out, \(settled) of \(batch.count) App Store orders settled within \(Self.limit)"
                )
            }
            google.failPurchaseLookups(status: nil)
            say("Google Play back after \(settled) of \(batch.count) App Store orders settled while it was out")
            phase = .over
        }
    }
}
