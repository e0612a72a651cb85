import Foundation
import Logging
import ServiceLifecycle

/// Works off `iap.google_finalizations`: every delivered Google purchase is acknowledged (or consumed), with
/// retries and backoff, whichever daemon delivered it and whether or not that daemon is still alive. A row is
/// claimed for the daemon's lease, so a daemon that dies mid-call leaves it to the next; the lease is renewed
/// row by row before each call, so a batch slower than one lease never has a row acknowledged twice.
package final class GoogleFinalizer: Service {
    private let pool: DatabasePool
    private let client: GooglePlayClient
    private let owner: String
    private let backoff: Backoff
    private let pollInterval: Duration
    private let logger: Logger
    private let metrics: ReceiptdMetrics
    /// Seconds after which a claimed row is another daemon's again (`RECEIPTD_LEASE`).
    private let lease: Double

    init(
        connectionString: String,
        client: GooglePlayClient,
        owner: String,
        backoff: Backoff,
        pollInterval: Duration,
        lease: Double,
        logger: Logger,
        metrics: ReceiptdMetrics
    ) {
        self.lease = lease
        pool = DatabasePool(
            connectionString: connectionString,
            maximumConnections: 2,
            sessionSettings: [("enable_seqscan", "off")]
        )
        self.client = client
        self.owner = owner
        self.backoff = backoff
        self.pollInterval = pollInterval
        self.logger = logger
        self.metrics = metrics
    }

    /// Polls for owed calls until graceful shutdown; a call in flight finishes first.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let owed = try await claim()
                for row in owed { await finalize(row) }
                metrics.googleFinalizationsOverdue(try await overdue())
                if owed.count == Self.batch { continue }
            } catch {
                logger.warning(
                    "Google acknowledgements: the database is unavailable; trying again",
                    metadata: [LogKey.error: "\(error)"]
                )
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
        }
        await pool.close()
    }

    private static let batch = 20

    private struct Owed {
        var transactionID: String
        var productID: String
        var token: String
        var action: GoogleFinalizeAction
        var attempts: Int
    }

    private func claim() async throws -> [Owed] {
        try await pool.execute(
            """
            WITH due AS (
                SELECT transaction_id FROM iap.google_finalizations
                WHERE done_at IS NULL AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                ORDER BY run_at
                LIMIT $2
                FOR UPDATE SKIP LOCKED
            )
            UPDATE iap.google_finalizations f
            SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = f.attempts + 1
            FROM due WHERE f.transaction_id = due.transaction_id
            RETURNING f.transaction_id, f.product_id, f.purchase_token, f.action, f.attempts
            """,
            [owner, Self.batch, lease]
        ).namedRows.map { row in
            Owed(
                transactionID: try row.string("transaction_id"),
                productID: try row.string("product_id"),
                token: try row.string("purchase_token"),
                action: GoogleFinalizeAction(rawValue: try row.string("action")) ?? .acknowledge,
                attempts: try row.int("attempts")
            )
        }
    }

    /// Renews the lease on `owed` for the call about to be made; false when the row is no longer this daemon's
    /// (its lease ran out while earlier calls of the batch were made, and another daemon claimed it) or is done.
    private func renewLease(_ owed: Owed) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE iap.google_finalizations SET locked_until = now() + make_interval(secs => $3)
            WHERE transaction_id = $1 AND locked_by = $2 AND done_at IS NULL
            """,
            [owed.transactionID, owner, lease]
        ).affectedRows == 1
    }

    private func finalize(_ owed: Owed) async {
        // Checked before each call, not once per batch: the row may have become another daemon's meanwhile.
        do {
            guard try await renewLease(owed) else {
                logger.debug(
                    "Google acknowledgement taken over by another daemon",
                    metadata: ["transaction": "\(owed.transactionID)"]
                )
                return
            }
        } catch {
            logger.warning(
                "could not renew a Google acknowledgement's lease; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
            return
        }
        var failure: String?
        do {
            // A retry may follow a call Google received from a daemon that died before recording it: ask first, so a
            // purchase is acknowledged once.
            if owed.attempts > 1, try await alreadyFinalized(owed) {
                try await markDone(owed)
                return
            }
            let answer = try await client.finalize(owed.action, productID: owed.productID, token: owed.token)
            if !(200..<300).contains(answer.status) {
                failure =
                    "Google Play \(owed.action.rawValue): HTTP \(answer.status)"
                    + (answer.errorMessage.map { " (\($0))" } ?? "")
            }
        } catch {
            failure = "Google Play \(owed.action.rawValue): \(error)"
        }
        metrics.googleFinalization(action: owed.action, succeeded: failure == nil)
        do {
            if let failure {
                let delay = backoff.delay(afterAttempt: owed.attempts)
                logger.warning(
                    "Google acknowledgement failed; retrying",
                    metadata: [
                        LogKey.error: "\(failure)", "transaction": "\(owed.transactionID)",
                        "next": "in \(String(format: "%.1f", delay)) s",
                    ]
                )
                try await pool.execute(
                    """
                    UPDATE iap.google_finalizations
                    SET run_at = now() + make_interval(secs => $3), last_error = $4, locked_by = NULL, locked_until = NULL
                    WHERE transaction_id = $1 AND locked_by = $2 AND done_at IS NULL
                    """,
                    [owed.transactionID, owner, delay, failure]
                )
            } else {
                try await markDone(owed)
            }
        } catch {
            // The lease returns the row; Google accepts a second acknowledgement.
            logger.warning(
                "could not record a Google acknowledgement; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }

    private func markDone(_ owed: Owed) async throws {
        try await pool.execute(
            """
            UPDATE iap.google_finalizations SET done_at = now(), last_error = NULL, locked_by = NULL, locked_until = NULL
            WHERE transaction_id = $1 AND done_at IS NULL
            """,
            [owed.transactionID]
        )
    }

    /// Whether Google already reports the purchase acknowledged (or consumed).
    private func alreadyFinalized(_ owed: Owed) async throws -> Bool {
        let answer = try await client.purchase(productID: owed.productID, token: owed.token)
        guard answer.status == 200, let purchase = answer.decoded(GoogleProductPurchase.self) else { return false }
        return purchase.isFinalized(by: owed.action)
    }

    private func overdue() async throws -> Int {
        try await pool.execute(
            "SELECT count(*) AS n FROM iap.google_finalizations WHERE done_at IS NULL AND overdue_at < now()"
        ).first?.int("n") ?? 0
    }
}
