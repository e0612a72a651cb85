extension PostgresJobQueue: WebhookQueue {
    /// `iap.set_webhook_endpoint`.
    package func setWebhookEndpoint(configured: Bool) async throws {
        try await pool.execute("SELECT iap.set_webhook_endpoint($1)", [configured])
    }

    /// Due `pending` events no lease holds (`SKIP LOCKED`), oldest first, none while the endpoint is disabled and
    /// none behind an earlier pending event of its order; the body is built from the stored columns, so every
    /// attempt sends the same bytes.
    package func claimWebhookEvents(limit: Int, lease: Duration) async throws -> [OwedWebhookEvent] {
        try await pool.execute(
            """
            WITH due AS (
                SELECT w.id FROM iap.webhook_events w
                WHERE w.state = 'pending' AND w.next_attempt_at <= now()
                  AND (w.locked_until IS NULL OR w.locked_until < now())
                  AND (SELECT e.disabled_at FROM iap.webhook_endpoint e WHERE e.singleton) IS NULL
                  AND (w.order_id IS NULL OR NOT EXISTS (
                      SELECT 1 FROM iap.webhook_events b
                      WHERE b.order_id = w.order_id AND b.state = 'pending' AND b.seq < w.seq))
                ORDER BY w.next_attempt_at, w.seq
                LIMIT $2
                FOR UPDATE OF w SKIP LOCKED
            )
            UPDATE iap.webhook_events w
            SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = w.attempts + 1
            FROM due WHERE w.id = due.id
            RETURNING w.id, w.type, w.order_id, w.attempts, w.seq,
                      jsonb_build_object(
                          'type', w.type,
                          'timestamp', to_char(w.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                          'data', w.payload)::text AS body
            """,
            [owner, limit, lease.seconds]
        ).namedRows.map { row in
            (
                seq: try row.int64("seq"),
                event: OwedWebhookEvent(
                    id: try row.string("id"),
                    type: WebhookEventType(rawValue: try row.string("type")) ?? .orderVerified,
                    orderID: row["order_id"],
                    body: try row.string("body"),
                    attempts: try row.int("attempts")
                )
            )
        }
        .sorted { $0.seq < $1.seq }
        .map(\.event)
    }

    /// One `UPDATE` for the lot; only events this daemon still holds from the same claim (`attempts` unchanged: a
    /// lease that lapsed during a long outage may have been claimed again by this very daemon), still `pending`.
    package func recordWebhookAttempts(_ attempts: [WebhookAttempt]) async throws {
        guard !attempts.isEmpty else { return }
        let rows = JSONText.rows(
            attempts.map { attempt in
                [
                    ("id", .string(attempt.id)), ("attempts", .int(Int64(attempt.attempts))),
                    ("state", .string(attempt.state.rawValue)),
                    ("delay_ms", .int(Int64(attempt.retryAfter.seconds * 1000))),
                    ("status", .optional(attempt.status)),
                    ("error", .optional(attempt.error.map { String($0.prefix(500)) })),
                ]
            }
        )
        try await pool.execute(
            """
            UPDATE iap.webhook_events w
            SET state = r.state,
                delivered_at = CASE WHEN r.state = 'delivered' THEN now() END,
                next_attempt_at = CASE WHEN r.state = 'pending' THEN now() + make_interval(secs => r.delay_ms / 1000.0)
                                       ELSE w.next_attempt_at END,
                last_status = r.status, last_error = r.error, locked_by = NULL, locked_until = NULL
            FROM jsonb_to_recordset($2::jsonb) AS r(id text, attempts int, state text, delay_ms bigint, status int,
                                                     error text)
            WHERE w.id = r.id AND w.locked_by = $1 AND w.attempts = r.attempts AND w.state = 'pending'
            """,
            [owner, rows]
        )
    }

    /// `iap.disable_webhooks`.
    package func disableWebhooks(eventID: String) async throws -> Bool {
        let rows = try await pool.execute("SELECT iap.disable_webhooks($1) AS disabled", [eventID]).namedRows
        return rows.first?["disabled"] == "t"
    }
}
