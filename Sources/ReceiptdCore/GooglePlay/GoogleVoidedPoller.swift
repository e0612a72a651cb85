import Foundation
import Logging
import ServiceLifecycle

/// Polls `purchases.voidedpurchases.list` every `GOOGLE_PLAY_VOIDED_INTERVAL`, one daemon at a time (an advisory
/// lock), from where the last poll got to, and marks each voided purchase that is in the ledger: `revoked_at`
/// and `revocation_reason`; nothing is deleted. Handing revocations to the game is for later.
public final class GoogleVoidedPoller: Service {
    private let connectionString: String
    private let client: GooglePlayClient
    private let interval: Duration
    private let logger: Logger
    /// `pg_try_advisory_lock` key: "receiptd google voided".
    package static let lockKey: Int64 = 0x7263_6474_766F_6964
    /// Google keeps voided purchases for 30 days: a first poll starts there.
    static let firstLookBack: Int64 = 30 * 86_400_000

    init(connectionString: String, client: GooglePlayClient, interval: Duration, logger: Logger) {
        self.connectionString = connectionString
        self.client = client
        self.interval = interval
        self.logger = logger
    }

    /// Polls until graceful shutdown.
    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(connectionString)
                defer { Task { await connection.close() } }
                if let recorded = try await pollOnce(on: connection), recorded > 0 {
                    logger.notice("recorded voided Google purchases", metadata: ["purchases": "\(recorded)"])
                }
            } catch {
                logger.warning("voided purchases: poll failed; trying again next interval", metadata: [LogKey.error: "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
        }
    }

    /// One poll under the lock; `nil` when another daemon holds it. Returns the ledger rows marked.
    package func pollOnce(on connection: PostgresConnection) async throws -> Int? {
        guard try await connection.execute("SELECT pg_try_advisory_lock($1) AS locked", [Self.lockKey]).first?["locked"] == "t" else {
            return nil
        }
        do {
            let recorded = try await poll(on: connection)
            _ = try? await connection.execute("SELECT pg_advisory_unlock($1)", [Self.lockKey])
            return recorded
        } catch {
            _ = try? await connection.execute("SELECT pg_advisory_unlock($1)", [Self.lockKey])
            throw error
        }
    }

    private func poll(on connection: PostgresConnection) async throws -> Int {
        let package = client.packageName
        let stored = try await connection.execute(
            "SELECT start_time_ms FROM iap.google_voided_cursor WHERE package_name = $1", [package]).first?["start_time_ms"].flatMap(Int64.init)
        let start = stored ?? Int64(Date().timeIntervalSince1970 * 1000) - Self.firstLookBack
        var latest = start
        var recorded = 0
        var pageToken: String?
        repeat {
            let answer = try await client.voided(startTime: start, pageToken: pageToken)
            guard answer.status == 200 else {
                throw GoogleAuthError(description: "voidedpurchases.list answered HTTP \(answer.status)" + (answer.errorMessage.map { ": \($0)" } ?? ""))
            }
            let fields = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
            let voided = (fields["voidedPurchases"] as? [[String: Any]]) ?? []
            var rows: [[(String, JSONText.Value)]] = []
            for entry in voided {
                guard let token = entry["purchaseToken"] as? String else { continue }
                let orderID = GooglePurchaseVerifier.ledgerID(orderID: entry["orderId"], token: token)
                let voidedAt = FlexibleJSON.integer(entry["voidedTimeMillis"]) ?? Int64(Date().timeIntervalSince1970 * 1000)
                latest = max(latest, voidedAt)
                rows.append([("transaction_id", .string(orderID)), ("voided_ms", .int(voidedAt)),
                             ("reason", .string(Self.reason(FlexibleJSON.integer(entry["voidedReason"]))))])
            }
            if !rows.isEmpty {
                recorded += try await connection.execute("""
                    UPDATE iap.deliveries d SET revoked_at = to_timestamp(v.voided_ms / 1000.0), revocation_reason = v.reason
                    FROM jsonb_to_recordset($1::jsonb) AS v(transaction_id text, voided_ms bigint, reason text)
                    WHERE d.store = 'google' AND d.transaction_id = v.transaction_id AND d.revoked_at IS NULL
                    """, [JSONText.rows(rows)]).affectedRows
            }
            pageToken = ((fields["tokenPagination"] as? [String: Any])?["nextPageToken"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        } while pageToken != nil
        // Next time from the newest voiding seen: the list is by voidedTime, and a row marked twice changes nothing.
        try await connection.execute("""
            INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, polled_at) VALUES ($1, $2, now())
            ON CONFLICT (package_name) DO UPDATE SET start_time_ms = excluded.start_time_ms, polled_at = now()
            """, [package, latest])
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
