import Foundation
import Logging
import ServiceLifecycle

/// Polls `purchases.voidedpurchases.list` every `GOOGLE_PLAY_VOIDED_INTERVAL`, one daemon at a time (an advisory
/// lock), from where the last poll got to, and marks each voided purchase that is in the ledger: `revoked_at`
/// and `revocation_reason`; nothing is deleted. Quantity-based partial refunds are listed too
/// (`includeQuantityBasedPartialRefund=true`): one voiding fewer units than the ledger row holds is recorded once
/// in `iap.google_partial_refunds` and adds to the row's `revoked_quantity` (all units revoke the row).
///
/// Each attempt is recorded on the package's `iap.google_voided_cursor` row (success, failure, a lock found
/// held), so a poll that has not succeeded for a day shows in `iap.stuck_jobs` (`voided_poll_failing`) and a
/// lock held elsewhere for over three intervals shows in `receiptd status`.
package final class GoogleVoidedPoller: Service {
    private let queue: any JobQueue
    private let client: GooglePlayClient
    private let interval: Duration
    private let logger: Logger
    /// `pg_try_advisory_lock` key: "receiptd google voided".
    package static let lockKey = PostgresJobQueue.voidedPollLockKey
    /// Google lists voided purchases at most 30 days back and answers 400 to an older `startTime`: no window starts
    /// earlier than this, ten minutes short of 30 days so that clocks that differ a little still agree.
    static let longestLookBack: Int64 = 30 * 86_400_000 - 600_000

    init(queue: any JobQueue, client: GooglePlayClient, interval: Duration, logger: Logger) {
        self.queue = queue
        self.client = client
        self.interval = interval
        self.logger = logger
    }

    /// Polls until graceful shutdown.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                if let recorded = try await pollOnce(), recorded > 0 {
                    logger.notice("recorded voided Google purchases", metadata: ["purchases": "\(recorded)"])
                }
            } catch let failure as VoidedPollFailure where failure.status == 400 {
                // Not transient: Google refuses the request itself, and will until what it asks changes.
                logger.error(
                    "voided purchases: Google refused the request as invalid (HTTP 400); trying again next interval",
                    metadata: [LogKey.error: "\(failure)"]
                )
            } catch {
                logger.warning(
                    "voided purchases: poll failed; trying again next interval",
                    metadata: [LogKey.error: "\(error)"]
                )
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }

    /// One poll under the lock; `nil` when another session holds it. Returns the ledger rows marked.
    package func pollOnce() async throws -> Int? {
        let outcome = try await queue.withVoidedPollLock(
            packageName: client.packageName,
            interval: interval,
            earliestStart: Self.earliestStart()
        ) { cursor in
            try await self.poll(cursor)
        }
        switch outcome {
        case .polled(let recorded):
            return recorded
        case .held(let missing):
            // Logged once no poller has had the lock for three intervals.
            if missing > interval * 3 {
                let holders = (try? await queue.voidedPollLockHolders()) ?? []
                logger.warning(
                    "voided purchases: no poll could take the advisory lock for over three intervals; refunds go unrecorded meanwhile",
                    metadata: [
                        "seconds": "\(Int(missing.seconds))",
                        "holders": "\(holders.map(\.description).joined(separator: "; "))",
                    ]
                )
            }
            return nil
        }
    }

    /// The oldest `startTime` Google accepts at `now`.
    static func earliestStart(now: Date = Date()) -> Int64 {
        Int64(now.timeIntervalSince1970 * 1000) - longestLookBack
    }

    private func poll(_ cursor: any VoidedPollCursor) async throws -> Int {
        let stored = try await cursor.startTime()
        let now = Date()
        let end = Int64(now.timeIntervalSince1970 * 1000)
        // A cursor left further back (no successful poll for weeks) would be refused; what Google no longer lists is out of reach anyway.
        let start = min(max(stored ?? 0, Self.earliestStart(now: now)), end)
        var latest: Int64?
        var recorded = 0
        var pageToken: String?
        repeat {
            let answer = try await client.voided(startTime: start, endTime: end, pageToken: pageToken)
            guard answer.status == 200 else {
                throw VoidedPollFailure(status: answer.status, message: answer.errorMessage, startTime: start)
            }
            let page = answer.decoded(GoogleVoidedPurchasesPage.self)
            var rows: [VoidedDelivery] = []
            for entry in page?.entries ?? [] {
                let voidedAt = entry.voidedTimeMilliseconds ?? end
                latest = max(latest ?? voidedAt, voidedAt)
                rows.append(
                    VoidedDelivery(
                        transactionID: entry.ledgerID,
                        voidedAtMilliseconds: voidedAt,
                        reason: Self.reason(entry.voidedReason),
                        quantity: entry.voidedQuantity,
                        purchaseToken: entry.purchaseToken
                    )
                )
            }
            recorded += try await cursor.markVoided(rows)
            pageToken = page?.nextPageToken
        } while pageToken != nil
        // Next time from the newest voiding seen (the list is by voidedTime, and a row marked twice changes nothing),
        // or from this poll's end when nothing was voided, so the cursor never falls behind what Google accepts.
        try await cursor.advance(to: latest ?? end)
        return recorded
    }

    /// Google's `voidedReason` codes, in words.
    static func reason(_ code: Int64?) -> String {
        switch code {
        case 0: "other"
        case 1: "remorse"
        case 2: "not_received"
        case 3: "defective"
        case 4: "accidental_purchase"
        case 5: "fraud"
        case 6: "friendly_fraud"
        case 7: "chargeback"
        case let code?: "reason_\(code)"
        case nil: "unknown"
        }
    }
}
