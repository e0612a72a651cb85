import Foundation
import ReceiptdCore
import Testing

/// The notification claim at a storm's size (issue #48, items 3 and 9): with 50,000 `DID_RENEW` waiting, its plan
/// walks the backlog in Apple's order by index and stops after its batch, probing each row's transaction by index;
/// nothing sorts, hashes or scans the backlog, whether the statistics were taken before the storm or during it.
/// Before migration 31 every claim sorted the whole backlog (and, under the server's defaults, scanned the table
/// twice).
@Suite struct NotificationClaimPlanTests {
    /// The plan's nodes, depth first: each node's type with the index it reads, if any.
    private func nodes(_ plan: Any) -> [(type: String, index: String?)] {
        guard let node = plan as? [String: Any] else { return [] }
        let own = [(type: node["Node Type"] as? String ?? "", index: node["Index Name"] as? String)]
        return own + ((node["Plans"] as? [Any]) ?? []).flatMap(nodes)
    }

    /// The plan `explain` returns in JSON.
    private func plan(_ f: Fixture, _ explain: String) async throws -> [(type: String, index: String?)] {
        let text = try #require(try await f.connection.execute(explain).rows.first?[0])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        return nodes(try #require(root.first?["Plan"]))
    }

    @Test func theClaimWalksAnIndexAndStopsAfterItsBatchWhateverTheBacklog() async throws {
        try await Fixture.with { f in
            // A month of processed news, analyzed while nothing waited, as between storms.
            try await f.script(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                                                     original_transaction_id, signed_at, source, payload, processed_at,
                                                     result)
                SELECT 'apple', 'old-' || g, 'DID_RENEW', 'old-' || g, 'o-' || g % 10000,
                       now() - interval '30 days' + g * interval '10 ms', 'push', '{}', now(), 'period_enqueued'
                FROM generate_series(1, 20000) g;
                ANALYZE iap.store_notifications;
                """
            )
            // The storm: 50,000 renewals waiting, a few put off, a few waiting for Google's answer, and one
            // transaction with two notifications.
            try await f.script(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                                                     original_transaction_id, signed_at, source, payload)
                SELECT 'apple', 'new-' || g, 'DID_RENEW', 't-' || g, 'o-' || g,
                       now() - interval '1 hour' + g * interval '1 ms', 'push', '{}'
                FROM generate_series(1, 50000) g;
                UPDATE iap.store_notifications SET run_at = now() + interval '1 hour'
                WHERE notification_id IN ('new-10', 'new-20', 'new-30');
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id, source,
                                                     payload, awaiting_lookup)
                SELECT 'google', 'g-' || g, 'SUBSCRIPTION_RENEWED', NULL, 'push', '{}', true
                FROM generate_series(1, 100) g;
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                                                     original_transaction_id, signed_at, source, payload)
                VALUES ('apple', 'again-5', 'REFUND', 't-5', 'o-5', now(), 'push', '{}');
                """
            )
            let claim = PostgresJobQueue.notificationSQL.claim
            // Custom plans with the batch's size, generic ones (a prepared statement's, as the daemon's pool
            // prepares it), under the server's defaults and as the daemon's sessions set them (no sequential scans),
            // on the statistics of before the storm and, analyzed, of the storm.
            try await f.connection.execute("PREPARE claim(int) AS \(claim)")
            // Statistics taken before the storm are only ever read under the daemon's settings: its sessions', and
            // what its processor sets around the claim.
            let daemons = ["SET enable_seqscan = off", PostgresJobQueue.claimSettings.without]
            for analyzed in [false, true] {
                if analyzed { try await f.connection.execute("ANALYZE iap.store_notifications") }
                for settings in analyzed ? [[], daemons] : [daemons] {
                    for generic in [false, true] {
                        try await f.connection.execute("BEGIN")
                        for setting in settings + ["SET plan_cache_mode = \(generic ? "force_generic_plan" : "auto")"] {
                            try await f.connection.execute(setting)
                        }
                        let nodes = try await plan(
                            f,
                            generic
                                ? "EXPLAIN (FORMAT JSON) EXECUTE claim(32)"
                                : "EXPLAIN (FORMAT JSON) " + claim.replacingOccurrences(of: "$1", with: "32")
                        )
                        try await f.connection.execute("ROLLBACK")
                        let described = "analyzed: \(analyzed) \(settings) generic: \(generic): \(nodes)"
                        // The outer side walks the claim's index; the NOT EXISTS probes one transaction's waiting.
                        let scans = nodes.filter { $0.index != nil }
                        #expect(scans.first?.index == "store_notifications_claim", "\(described)")
                        #expect(scans.last?.index == "store_notifications_waiting_transaction", "\(described)")
                        #expect(scans.count == 2 && scans.allSatisfy { $0.type == "Index Scan" }, "\(described)")
                        let whole = nodes.filter {
                            ["Sort", "Incremental Sort", "Hash", "Seq Scan", "Bitmap Heap Scan", "Materialize"]
                                .contains($0.type)
                        }
                        #expect(whole.isEmpty, "\(described)")
                    }
                    try await f.connection.execute("RESET ALL")
                }
            }

            // What it claims: the earliest due ones, in Apple's order; not one put off, and not the REFUND of t-5
            // while its DID_RENEW waits.
            let claimed = try await f.connection.execute(claim.replacingOccurrences(of: "$1", with: "12")).namedRows
                .map { $0["id"] }
            let expected = try await f.connection.execute(
                """
                SELECT id FROM iap.store_notifications
                WHERE notification_id IN ('new-1', 'new-2', 'new-3', 'new-4', 'new-5', 'new-6', 'new-7', 'new-8',
                                          'new-9', 'new-11', 'new-12', 'new-13')
                ORDER BY id
                """
            ).namedRows.map { $0["id"] }
            #expect(claimed == expected)
        }
    }
}
