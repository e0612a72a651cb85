import ReceiptdCore

extension DatabaseCeiling {
    /// Jobs one run of the job script claims in one statement and then settles one by one, as a daemon does.
    static let jobsPerClaim = 8
    /// Orders one run of the enqueue script makes in one statement, as `receiptd loadgen` batches them.
    static let ordersPerEnqueue = 100
    /// pgbench script weights that make as many orders as the job script settles.
    static let weights = (enqueue: 2, jobs: 25)

    /// The load's side: a batch of orders through `iap.enqueue_receipt`, one statement and one NOTIFY.
    static let enqueueScript = #"""
        \set n random(1, 2000000000)
        SELECT count(iap.enqueue_receipt(o, 'u' || o, 'com.example.gems100', 'e30=', 1))
        FROM (SELECT 'pgb-' || :client_id || '-' || :n || '-' || g AS o FROM generate_series(1, \#(ordersPerEnqueue)) g) batch;
        """#

    /// The daemon's side, statement for statement (see `JobStore.claim` and `JobStore.recordVerified`): one
    /// claim of several jobs, then per job the two pipelines of a verified receipt that pays its order.
    /// Parameters are pgbench variables, sent as bind parameters of prepared statements under `-M prepared`.
    static var jobScript: String {
        let columns = [("id", "job_id"), ("order_id", "order_id"), ("user_id", "user_id"), ("attempts", "attempts")]
        let picks = (1...jobsPerClaim).map { i in
            columns.map { "(array_agg(\($0.0) ORDER BY id))[\(i)] AS \($0.1)_\(i)" }.joined(separator: ", ")
        }.joined(separator: ",\n       ")
        // The daemon's own claim text, with pgbench's batch size and owner for its two parameters.
        let daemonClaim = JobStore.claimSQL
            .replacingOccurrences(of: "$1", with: String(jobsPerClaim))
            .replacingOccurrences(of: "$2", with: "'pgbench'")
        let claim = """
            WITH claimed AS (
            \(daemonClaim)
            )
            SELECT \(picks)
            FROM claimed
            \\gset
            """
        return ([claim] + (1...jobsPerClaim).map(settle)).joined(separator: "\n")
    }

    private static func settle(_ i: Int) -> String {
        """
        \\startpipeline
        BEGIN;
        SELECT order_id, product_id, quantity, delivered_quantity, (extract(epoch FROM created_at) * 1000)::bigint AS created_ms
        FROM iap.orders WHERE user_id = :user_id_\(i) AND (outcome IS DISTINCT FROM 'full' OR order_id = :order_id_\(i)) ORDER BY order_id FOR UPDATE;
        SELECT 1 FROM iap.jobs WHERE id = :job_id_\(i) AND state = 'running' AND locked_by = 'pgbench' FOR UPDATE;
        SELECT transaction_id FROM iap.deliveries WHERE transaction_id = ANY (ARRAY(SELECT jsonb_array_elements_text(jsonb_build_array('pgb' || :job_id_\(i)))));
        SELECT original_transaction_id, user_id FROM iap.transaction_owners WHERE original_transaction_id = ANY (ARRAY(SELECT jsonb_array_elements_text(jsonb_build_array('pgb' || :job_id_\(i)))));
        \\endpipeline
        \\startpipeline
        WITH ledger AS (
            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment, job_id)
            SELECT d.transaction_id, d.order_id, :user_id_\(i), d.product_id, d.quantity, to_timestamp(d.purchase_ms / 1000.0), 'Production', :job_id_\(i)
            FROM jsonb_to_recordset(jsonb_build_array(jsonb_build_object('transaction_id', 'pgb' || :job_id_\(i), 'order_id', :order_id_\(i)::text,
                     'product_id', 'com.example.gems100', 'quantity', 1, 'purchase_ms', 0)))
                 AS d(transaction_id text, order_id text, product_id text, quantity int, purchase_ms bigint)
        ), paid AS (
            UPDATE iap.orders o SET delivered_quantity = r.delivered, outcome = r.outcome::iap.outcome, outcome_at = now()
            FROM jsonb_to_recordset(jsonb_build_array(jsonb_build_object('order_id', :order_id_\(i)::text, 'delivered', 1, 'outcome', 'full')))
                 AS r(order_id text, delivered int, outcome text)
            WHERE o.user_id = :user_id_\(i) AND o.outcome IS DISTINCT FROM 'full' AND o.order_id = r.order_id
        ), owners AS (
            INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id)
            SELECT n.original_id, :user_id_\(i), n.order_id
            FROM jsonb_to_recordset(jsonb_build_array(jsonb_build_object('original_id', 'pgb' || :job_id_\(i), 'order_id', :order_id_\(i)::text)))
                 AS n(original_id text, order_id text)
        ), finished AS (
            UPDATE iap.jobs SET state = 'succeeded', finished_at = now(), environment = 'Production', last_error = NULL,
                locked_by = NULL, heartbeat_at = NULL WHERE id = :job_id_\(i)
        )
        INSERT INTO iap.attempts (job_id, order_id, attempt, daemon, started_at, duration_ms, environment, apple_status, http_status, result, error_class, error)
        VALUES (:job_id_\(i), :order_id_\(i), :attempts_\(i), 'pgbench', now(), 0, 'Production', 0, 200, 'verified', NULL, NULL);
        COMMIT;
        \\endpipeline
        """
    }
}
