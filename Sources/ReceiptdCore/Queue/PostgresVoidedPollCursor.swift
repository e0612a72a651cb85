/// The voided poll's cursor and marks, on the connection that holds the poll's advisory lock.
struct PostgresVoidedPollCursor: VoidedPollCursor {
    let connection: PostgresConnection
    let packageName: String
    let interval: Duration

    func startTime() async throws -> Int64? {
        try await connection.execute(
            "SELECT start_time_ms FROM iap.google_voided_cursor WHERE package_name = $1",
            [packageName]
        ).first?["start_time_ms"].flatMap(Int64.init)
    }

    func markVoided(_ voided: [VoidedDelivery]) async throws -> Int {
        guard !voided.isEmpty else { return 0 }
        let rows = voided.map { entry -> [(String, JSONText.Value)] in
            var row: [(String, JSONText.Value)] = [
                ("transaction_id", .string(entry.transactionID)), ("voided_ms", .int(entry.voidedAtMilliseconds)),
                ("reason", .string(entry.reason)),
            ]
            if let quantity = entry.quantity { row.append(("quantity", .int(Int64(quantity)))) }
            if let token = entry.purchaseToken { row.append(("token", .string(token))) }
            return row
        }
        let json = JSONText.rows(rows)
        _ = try await connection.execute(Self.recordPartialRefunds, [json])
        let partly = try await connection.execute(Self.revokeUnits, [json]).first?.int("changed") ?? 0
        let whole = try await connection.execute(Self.revokeWhole, [json]).first?.int("changed") ?? 0
        _ = try await connection.execute(Self.date, [json])
        return partly + whole
    }

    /// A voiding of fewer units than the ledger row holds (or of a purchase not delivered yet, which the ledger
    /// row starts with when it is): recorded once, whoever lists it first (this poll or a notification). Refunds
    /// add up, so one is recorded whatever news the row has had since.
    static let recordPartialRefunds = """
        INSERT INTO iap.google_partial_refunds (transaction_id, voided_at, voided_quantity, purchase_token)
        SELECT v.transaction_id, to_timestamp(v.voided_ms / 1000.0), v.quantity, v.token
        FROM jsonb_to_recordset($1::jsonb) AS v(transaction_id text, voided_ms bigint, quantity int, token text)
        WHERE v.quantity >= 1
          AND NOT EXISTS (SELECT 1 FROM iap.deliveries d
                          WHERE d.store = 'google' AND d.transaction_id = v.transaction_id AND v.quantity >= d.quantity)
        ON CONFLICT (transaction_id, voided_at) DO NOTHING
        """

    /// Each listed ledger row's `revoked_quantity` becomes its partial refunds' sum (`iap.revoke_refunded_units`).
    static let revokeUnits = """
        SELECT iap.revoke_refunded_units(ARRAY(SELECT v.transaction_id
                                               FROM jsonb_to_recordset($1::jsonb) AS v(transaction_id text, quantity int)
                                               WHERE v.quantity IS NOT NULL)) AS changed
        """

    /// A voiding of the whole purchase (no `voidedQuantity`, or all of the row's units), unless the ledger row
    /// has newer news (`store_time`). A subscription's refunded period has its subscription read again at once, as
    /// its notification would: Google may have ended it.
    static let revokeWhole = """
        WITH revoked AS (
            UPDATE iap.deliveries d SET revoked_at = to_timestamp(v.voided_ms / 1000.0), revocation_reason = v.reason,
                revocation_percentage = NULL
            FROM jsonb_to_recordset($1::jsonb) AS v(transaction_id text, voided_ms bigint, reason text, quantity int)
            WHERE d.store = 'google' AND d.transaction_id = v.transaction_id AND d.revoked_at IS NULL
              AND (v.quantity IS NULL OR v.quantity >= d.quantity)
              AND (d.store_time IS NULL OR d.store_time <= to_timestamp(v.voided_ms / 1000.0))
            RETURNING d.subscription_id
        ), reread AS (
            UPDATE iap.subscriptions s SET read_due_at = now(), read_attempts = 0
            WHERE s.subscription_id IN (SELECT r.subscription_id FROM revoked r WHERE r.subscription_id IS NOT NULL)
        )
        SELECT count(*)::int AS changed FROM revoked
        """

    /// Each listed ledger row is dated with its latest voiding (`store_time`), unless its news is newer: run after
    /// the marks, which compare with the time before.
    static let date = """
        UPDATE iap.deliveries d SET store_time = v.latest
        FROM (SELECT transaction_id, to_timestamp(max(voided_ms) / 1000.0) AS latest
              FROM jsonb_to_recordset($1::jsonb) AS e(transaction_id text, voided_ms bigint)
              GROUP BY transaction_id) v
        WHERE d.store = 'google' AND d.transaction_id = v.transaction_id
          AND (d.store_time IS NULL OR d.store_time < v.latest)
        """

    func advance(to startTime: Int64) async throws {
        try await connection.execute(
            """
            INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, polled_at, succeeded_at, lock_taken_at, interval_seconds)
            VALUES ($1, $2, now(), now(), now(), $3)
            ON CONFLICT (package_name) DO UPDATE SET start_time_ms = excluded.start_time_ms, polled_at = now(), succeeded_at = now(),
                last_error = NULL, lock_taken_at = now(), interval_seconds = excluded.interval_seconds
            """,
            [packageName, startTime, interval.seconds]
        )
    }
}
