import Foundation
import Logging
import ServiceLifecycle

/// Polls `purchases.voidedpurchases.list` every `GOOGLE_PLAY_VOIDED_INTERVAL`, one daemon at a time (an advisory
/// lock), from where the last poll got to, and marks each voided purchase that is in the ledger: `revoked_at`
/// and `revocation_reason`; nothing is deleted. Handing revocations to the game is for later.
///
/// Each attempt is recorded on the package's `iap.google_voided_cursor` row (success, failure, a lock found
/// held), so a poll that has not succeeded for a day shows in `iap.stuck_jobs` (`voided_poll_failing`) and a
/// lock held elsewhere for over three intervals shows in `receiptd status`.
package final class GoogleVoidedPoller: Service {
    private let connectionString: String
    private let client: GooglePlayClient
    private let interval: Duration
    private let logger: Logger
    /// `pg_try_advisory_lock` key: "receiptd google voided".
    package static let lockKey: Int64 = 0x7263_6474_766F_6964
    /// Google lists voided purchases at most 30 days back and answers 400 to an older `startTime`: no window starts
    /// earlier than this, ten minutes short of 30 days so that clocks that differ a little still agree.
    static let longestLookBack: Int64 = 30 * 86_400_000 - 600_000

    init(connectionString: String, client: GooglePlayClient, interval: Duration, logger: Logger) {
        self.connectionString = connectionString
        self.client = client
        self.interval = interval
        self.logger = logger
    }

    /// Polls until graceful shutdown.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(connectionString)
                defer { Task { await connection.close() } }
                if let recorded = try await pollOnce(on: connection), recorded > 0 {
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
    package func pollOnce(on connection: PostgresConnection) async throws -> Int? {
        guard
            try await connection.execute("SELECT pg_try_advisory_lock($1) AS locked", [Self.lockKey]).first?["locked"]
                == "t"
        else {
            try await recordMissedLock(on: connection)
            return nil
        }
        do {
            let recorded = try await poll(on: connection)
            _ = try? await connection.execute("SELECT pg_advisory_unlock($1)", [Self.lockKey])
            return recorded
        } catch {
            _ = try? await connection.execute(
                """
                INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, polled_at, failed_at, last_error, lock_taken_at, interval_seconds)
                VALUES ($1, $2, now(), now(), $3, now(), $4)
                ON CONFLICT (package_name) DO UPDATE SET polled_at = now(), failed_at = now(), last_error = excluded.last_error,
                    lock_taken_at = now(), interval_seconds = excluded.interval_seconds
                """,
                [client.packageName, Self.earliestStart(), String("\(error)".prefix(500)), interval.seconds]
            )
            _ = try? await connection.execute("SELECT pg_advisory_unlock($1)", [Self.lockKey])
            throw error
        }
    }

    /// Another session holds the lock: recorded, and logged once no poller has had the lock for three intervals.
    private func recordMissedLock(on connection: PostgresConnection) async throws {
        let missing =
            try await connection.execute(
                """
                INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, lock_missed_at, interval_seconds) VALUES ($1, $2, now(), $3)
                ON CONFLICT (package_name) DO UPDATE SET lock_missed_at = now(), interval_seconds = excluded.interval_seconds
                RETURNING extract(epoch FROM now() - coalesce(google_voided_cursor.lock_taken_at, google_voided_cursor.created_at))::float8 AS missing
                """,
                [client.packageName, Self.earliestStart(), interval.seconds]
            ).first?["missing"].flatMap(Double.init) ?? 0
        guard missing > 3 * interval.seconds else { return }
        let holders = (try? await AdvisoryLockHolder.holders(of: Self.lockKey, on: connection)) ?? []
        logger.warning(
            "voided purchases: no poll could take the advisory lock for over three intervals; refunds go unrecorded meanwhile",
            metadata: [
                "seconds": "\(Int(missing))", "holders": "\(holders.map(\.description).joined(separator: "; "))",
            ]
        )
    }

    /// The oldest `startTime` Google accepts at `now`.
    static func earliestStart(now: Date = Date()) -> Int64 {
        Int64(now.timeIntervalSince1970 * 1000) - longestLookBack
    }

    private func poll(on connection: PostgresConnection) async throws -> Int {
        let package = client.packageName
        let stored = try await connection.execute(
            "SELECT start_time_ms FROM iap.google_voided_cursor WHERE package_name = $1",
            [package]
        ).first?["start_time_ms"].flatMap(Int64.init)
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
            var rows: [[(String, JSONText.Value)]] = []
            for entry in page?.entries ?? [] {
                let voidedAt = entry.voidedTimeMilliseconds ?? end
                latest = max(latest ?? voidedAt, voidedAt)
                rows.append([
                    ("transaction_id", .string(entry.ledgerID)), ("voided_ms", .int(voidedAt)),
                    ("reason", .string(Self.reason(entry.voidedReason))),
                ])
            }
            if !rows.isEmpty {
                recorded += try await connection.execute(
                    """
                    UPDATE iap.deliveries d SET revoked_at = to_timestamp(v.voided_ms / 1000.0), revocation_reason = v.reason
                    FROM jsonb_to_recordset($1::jsonb) AS v(transaction_id text, voided_ms bigint, reason text)
                    WHERE d.store = 'google' AND d.transaction_id = v.transaction_id AND d.revoked_at IS NULL
                    """,
                    [JSONText.rows(rows)]
                ).affectedRows
            }
            pageToken = page?.nextPageToken
        } while pageToken != nil
        // Next time from the newest voiding seen (the list is by voidedTime, and a row marked twice changes nothing),
        // or from this poll's end when nothing was voided, so the cursor never falls behind what Google accepts.
        try await connection.execute(
            """
            INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, polled_at, succeeded_at, lock_taken_at, interval_seconds)
            VALUES ($1, $2, now(), now(), now(), $3)
            ON CONFLICT (package_name) DO UPDATE SET start_time_ms = excluded.start_time_ms, polled_at = now(), succeeded_at = now(),
                last_error = NULL, lock_taken_at = now(), interval_seconds = excluded.interval_seconds
            """,
            [package, latest ?? end, interval.seconds]
        )
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
