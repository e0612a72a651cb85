extension DatabaseCeiling {
    /// One job's SQL, as pgbench runs it: the enqueue, the daemon's claim (one job), and the settle
    /// transaction of a verified receipt paying its order (see `JobStore.claim` and `JobStore.recordVerified`).
    /// Parameters are pgbench variables, sent as bind parameters under `-M extended`.
    static let script = #"""
        \set n random(1, 2000000000)
        SELECT iap.enqueue_receipt('pgb-' || :client_id || '-' || :n, 'pgbu-' || :client_id || '-' || :n, 'com.example.gems100', 'e30=', 1);
        WITH due AS (
            SELECT id FROM iap.jobs WHERE state = 'pending' AND run_at <= now() ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
        )
        UPDATE iap.jobs j
        SET state = 'running', attempts = j.attempts + 1, started_at = now(), heartbeat_at = now(), locked_by = 'pgbench'
        FROM due, iap.orders o
        WHERE j.id = due.id AND o.order_id = j.order_id
        RETURNING j.id AS job_id, j.receipt_data, j.attempts, j.malformed_count, o.order_id, o.user_id, o.product_id,
                  o.quantity, o.delivered_quantity, (extract(epoch FROM o.created_at) * 1000)::bigint AS created_ms
        \gset
        BEGIN;
        SELECT order_id, product_id, quantity, delivered_quantity, (extract(epoch FROM created_at) * 1000)::bigint AS created_ms
        FROM iap.orders WHERE user_id = :user_id AND (outcome IS DISTINCT FROM 'full' OR order_id = :order_id) ORDER BY order_id FOR UPDATE;
        SELECT 1 FROM iap.jobs WHERE id = :job_id AND state = 'running' AND locked_by = 'pgbench' FOR UPDATE;
        SELECT transaction_id FROM iap.deliveries WHERE transaction_id = ANY (SELECT jsonb_array_elements_text(jsonb_build_array(:job_id::text)));
        INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment, job_id)
        SELECT :job_id::text, o.order_id, o.user_id, o.product_id, 1, now(), 'Production', :job_id
        FROM iap.orders o WHERE o.order_id = :order_id ON CONFLICT (transaction_id) DO NOTHING;
        UPDATE iap.orders o SET delivered_quantity = 1, outcome = 'full', outcome_at = now()
        WHERE o.order_id = :order_id AND o.outcome IS DISTINCT FROM 'full';
        UPDATE iap.jobs SET state = 'succeeded', finished_at = now(), environment = 'Production', last_error = NULL,
            locked_by = NULL, heartbeat_at = NULL WHERE id = :job_id;
        INSERT INTO iap.attempts (job_id, order_id, attempt, daemon, started_at, duration_ms, environment, apple_status, http_status, result, error_class, error)
        VALUES (:job_id, :order_id, :attempts, 'pgbench', now(), 0, 'Production', 0, 200, 'verified', NULL, NULL);
        COMMIT;
        """#
}
