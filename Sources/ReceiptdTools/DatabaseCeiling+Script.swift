import ReceiptdCore

extension DatabaseCeiling {
    /// Jobs one run of the job script claims in one statement and settles in one batch, as a busy daemon does.
    static let jobsPerClaim = 50
    /// Orders one run of the enqueue script makes in one statement, as `receiptd loadgen` batches them.
    static let ordersPerEnqueue = 100
    /// pgbench script weights that make as many orders as the job script settles.
    static let weights = (enqueue: 1, jobs: 2)
    /// The daemon's session settings, which pgbench's sessions take too (as `PGOPTIONS`).
    static let sessionOptions = "-c enable_seqscan=off"

    /// The load's side: a batch of orders through `iap.enqueue_receipt`, one statement and one NOTIFY.
    static let enqueueScript = #"""
        \set n random(1, 2000000000)
        SELECT count(iap.enqueue_receipt(o, 'u' || o, 'com.example.gems100', 'e30=', 1))
        FROM (SELECT 'pgb-' || :client_id || '-' || :n || '-' || g AS o FROM generate_series(1, \#(ordersPerEnqueue)) g) batch;
        """#

    /// The daemon's side, in the daemon's own SQL text (`PostgresJobQueue.claimPlanSetting`, `.claimSQL`,
    /// `.settleReads`, `.settleWrite`): one claim in a transaction of its own, then the two pipelines of a batch
    /// settle of verified receipts that each pay their order. Each `$n` becomes a pgbench variable, sent as a bind
    /// parameter under `-M prepared`; the claim builds the `jsonb` row sets that the daemon builds in Swift.
    static var jobScript: String {
        let claim = substitute(
            PostgresJobQueue.claimSQL,
            [String(jobsPerClaim), "'pgbench'", "'{receipt,transaction,google_purchase}'", "'all'"]
        )
        let rowSets = [
            ("users", "jsonb_agg(DISTINCT user_id)"), ("orders", "jsonb_agg(order_id)"),
            ("job_ids", "jsonb_agg(id::text)"),
            ("transactions", "jsonb_agg('pgb' || id)"),
            (
                "deliveries",
                """
                jsonb_agg(jsonb_build_object('transaction_id', 'pgb' || id, 'order_id', order_id, 'user_id', user_id,
                    'product_id', product_id, 'quantity', 1, 'purchase_ms', 0, 'environment', 'Production', 'job_id', id))
                """
            ),
            (
                "owners",
                "jsonb_agg(jsonb_build_object('original_id', 'pgb' || id, 'user_id', user_id, 'order_id', order_id))"
            ),
            ("results", "jsonb_agg(jsonb_build_object('order_id', order_id, 'delivered', 1, 'outcome', 'full'))"),
            ("jobs", "jsonb_agg(jsonb_build_object('id', id, 'environment', 'Production', 'flag', NULL))"),
            (
                "attempts",
                """
                jsonb_agg(jsonb_build_object('job_id', id, 'order_id', order_id, 'attempt', attempts, 'started_ms', 0,
                    'duration_ms', 0, 'environment', 'Production', 'apple_status', 0, 'http_status', 200, 'result', 'verified',
                    'error_class', NULL, 'error', NULL))
                """
            ),
        ]
        let picks = rowSets.map { "coalesce(\($1), '[]')::text AS \($0)" }.joined(separator: ",\n       ")
        return """
            BEGIN;
            \(PostgresJobQueue.claimPlanSetting);
            WITH claimed AS (
            \(claim)
            )
            SELECT \(picks)
            FROM claimed
            \\gset
            COMMIT;
            \\startpipeline
            BEGIN;
            \(substitute(PostgresJobQueue.settleReads.orders, [":users", ":orders"]));
            \(substitute(PostgresJobQueue.settleReads.jobs, [":job_ids", "'pgbench'"]));
            \(substitute(PostgresJobQueue.settleReads.delivered, [":transactions"]));
            \(substitute(PostgresJobQueue.settleReads.owners, [":transactions"]));
            \(substitute(PostgresJobQueue.settleReads.revoked, [":transactions"]));
            \\endpipeline
            \\startpipeline
            \(substitute(PostgresJobQueue.settleWrite, [":deliveries", ":owners", ":results", ":jobs", "'pgbench'", ":attempts"]));
            COMMIT;
            \\endpipeline
            """
    }

    /// `sql` with `$1`, `$2`, … replaced by `values` (highest first, so `$1` never eats the start of `$10`).
    static func substitute(_ sql: String, _ values: [String]) -> String {
        var text = sql
        for (index, value) in values.enumerated().reversed() {
            text = text.replacingOccurrences(of: "$\(index + 1)", with: value)
        }
        return text
    }
}
