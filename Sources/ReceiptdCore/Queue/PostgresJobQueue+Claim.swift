import Foundation

extension PostgresJobQueue {
    /// Claims up to `limit` due jobs that `filter` admits and marks them `running` in the same statement.
    ///
    /// The ids go through `= ANY (ARRAY(…))`: the prepared statement's generic plan guesses a tenth of the
    /// queue for `LIMIT $1`, and joined on that guess it scanned the whole jobs table on every claim.
    /// A job of a kind outside `filter.kinds` (one this binary does not know) is never touched.
    package func claim(limit: Int, filter: ClaimFilter = ClaimFilter()) async throws -> [ClaimedJob] {
        guard !filter.kinds.isEmpty else { return [] }
        let (kinds, transactions) = filter.parameters
        let result = try await pool.withSession { [owner] session in
            try session.rollingBack { session in
                try session.pipeline([
                    SQLStatement("BEGIN"), SQLStatement(Self.claimPlanSetting),
                    SQLStatement(Self.claimSQL, [limit, owner, kinds, transactions]), SQLStatement("COMMIT"),
                ])[2]
            }
        }
        return try result.namedRows.map { row in
            ClaimedJob(
                id: Int64(try row.int("id")),
                kind: try JobKind(row.string("kind")),
                input: try row.string("receipt_data"),
                attempts: try row.int("attempts"),
                malformedCount: try row.int("malformed_count"),
                order: try OrderSnapshot(row),
                userID: try row.string("user_id"),
                createdAtMilliseconds: Int64(try row.int("job_created_ms")),
                productKind: row["google_kind"].flatMap(ProductKind.init(rawValue:))
            )
        }
    }

    /// Sent before the claim in its transaction, so that the claim walks `jobs_pending_due` in its order and stops
    /// after `$1` rows. Statistics taken while the queue was nearly empty (nearly always) make pending jobs look
    /// rare, and the planner then read every active job through `jobs_one_active_per_order` and sorted them: under a
    /// backlog of tens of thousands, each claim read the whole backlog.
    package static let claimPlanSetting = "SET LOCAL enable_sort = off"

    /// The claim: `$1` is the batch size, `$2` this daemon's identity, `$3` the kinds it may take (`text[]`),
    /// `$4` which transaction jobs (`all`, `signed`: not bare decimal ids, `ids`: only those; see `ClaimFilter`).
    /// It still walks `jobs_pending_due` in (run_at, id) order; the filters only skip rows on the way.
    /// Reachable from the tools so that the benchmark's pgbench ceiling runs this very text.
    package static let claimSQL = """
        WITH due AS (
            SELECT id FROM iap.jobs
            WHERE state = '\(JobState.pending.rawValue)' AND run_at <= now() AND kind = ANY ($3::text[])
              AND (kind <> 'transaction' OR $4::text = 'all' OR ($4::text = 'ids') = (receipt_data ~ '^[0-9]+$'))
            ORDER BY run_at, id
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE iap.jobs j
        SET state = '\(JobState.running.rawValue)', attempts = j.attempts + 1, started_at = now(), heartbeat_at = now(), locked_by = $2
        FROM iap.orders o
        WHERE j.id = ANY (ARRAY(SELECT id FROM due)) AND o.order_id = j.order_id
        RETURNING j.id, j.kind, j.receipt_data, (extract(epoch FROM j.created_at) * 1000)::bigint AS job_created_ms, j.attempts, j.malformed_count, o.order_id, o.user_id, o.product_id,
                  o.quantity, o.delivered_quantity, (extract(epoch FROM o.created_at) * 1000)::bigint AS created_ms,
                  (extract(epoch FROM o.checkout_at) * 1000)::bigint AS checkout_ms, o.app_account_token, o.account_id,
                  (SELECT p.kind FROM iap.products p
                   WHERE j.kind = 'google_purchase' AND p.store = 'google' AND p.product_id = o.product_id) AS google_kind
        """
}

extension OrderSnapshot {
    /// Reads an order from the columns the claim and the settle select under the same names.
    init(_ row: QueryResult.Row) throws {
        self.init(
            orderID: try row.string("order_id"),
            productID: try row.string("product_id"),
            quantity: try row.int("quantity"),
            createdAtMilliseconds: Int64(try row.int("created_ms")),
            deliveredQuantity: try row.int("delivered_quantity"),
            checkoutAtMilliseconds: row["checkout_ms"].flatMap { Int64($0) },
            appAccountToken: row["app_account_token"].flatMap(UUID.init(uuidString:)),
            accountID: row["account_id"]
        )
    }
}
