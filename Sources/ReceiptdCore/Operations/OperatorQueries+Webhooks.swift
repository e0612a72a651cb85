import Foundation

extension OperatorQueries {
    /// The longest webhook id `replayWebhookEvents` takes (the daemons write `msg_` and 32 hex digits).
    package static let webhookEventIDMaxLength = 64

    /// Whether `text` can be a webhook id: `msg_`, then ASCII letters, digits, `_` or `-`, at most
    /// `webhookEventIDMaxLength` characters in all.
    package static func isWebhookEventID(_ text: String) -> Bool {
        text.hasPrefix("msg_") && text.count > "msg_".count && text.count <= webhookEventIDMaxLength
            && text.unicodeScalars.allSatisfy { idCharacters.contains($0) }
    }

    /// The characters of a webhook id after its prefix (and the prefix's own).
    private static let idCharacters = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-".unicodeScalars
    )

    /// The endpoint's state and the webhook events matching `filter`, newest first, from one snapshot.
    package func webhooks(_ filter: WebhookFilter) async throws -> WebhookListing {
        let (endpoint, events) = try await connection.withSession { session in
            try session.transaction { session in
                try session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let endpoint = try session.execute(WebhookEndpointStatus.query)
                let events = try session.execute(
                    """
                    SELECT \(WebhookEventSummary.columns)
                    FROM iap.webhook_events w
                    WHERE ($1::text IS NULL OR w.state = $1)
                      AND (($2::timestamptz IS NULL AND $3::int IS NULL)
                           OR w.created_at >= coalesce($2::timestamptz, now() - make_interval(secs => $3::int)))
                    ORDER BY w.created_at DESC, w.seq DESC
                    LIMIT $4
                    """,
                    [
                        filter.state?.rawValue, filter.since?.instantText, filter.since?.secondsAgoValue,
                        filter.limit,
                    ]
                )
                return (endpoint, events)
            }
        }
        return WebhookListing(
            endpoint: try endpoint.namedRows.first.map(WebhookEndpointStatus.init(row:)) ?? WebhookEndpointStatus(),
            events: try events.namedRows.map(WebhookEventSummary.init(row:))
        )
    }

    /// `iap.replay_webhook_events`: makes each event of `ids` pending again, due now, with attempts 0 and the same
    /// id. Throws `OperatorError.refused`, before any SQL, when an id cannot be a webhook id.
    package func replayWebhookEvents(_ ids: [String]) async throws -> WebhookReplayResult {
        if let bad = ids.first(where: { !Self.isWebhookEventID($0) }) {
            throw OperatorError.refused(
                "'\(bad)' is not a webhook id (msg_…, at most \(Self.webhookEventIDMaxLength) characters)"
            )
        }
        var unique: [String] = []
        for id in ids where !unique.contains(id) { unique.append(id) }
        // The ids as one JSON array parameter: nothing is spliced into the SQL.
        let list = String(decoding: try JSONEncoder().encode(unique), as: UTF8.self)
        let rows = try await audited(.replayWebhook, target: unique.joined(separator: " "), orderID: nil) { session in
            try session.execute(
                "SELECT iap.replay_webhook_events(ARRAY(SELECT jsonb_array_elements_text($1::jsonb))) AS id",
                [list]
            )
        }
        let found = Set(try rows.namedRows.map { try $0.string("id") })
        return WebhookReplayResult(
            replayed: unique.filter { found.contains($0) },
            notFound: unique.filter { !found.contains($0) }
        )
    }

    /// `iap.enable_webhooks`: clears a 410 Gone's disable, with `actor` (the operator's name) recorded, and makes
    /// every pending event due now; says whether it was disabled, in one transaction.
    package func enableWebhooks(actor: String) async throws -> WebhookEnableResult {
        let (before, pending) = try await audited(.enableWebhooks, target: "webhook endpoint", orderID: nil) {
            session in
            let before = try session.execute(WebhookEndpointStatus.query)
            let pending = try session.execute(
                "SELECT iap.enable_webhooks(coalesce(nullif($1, ''), session_user)) AS pending",
                [actor]
            )
            return (before, pending)
        }
        let endpoint = try before.namedRows.first.map(WebhookEndpointStatus.init(row:)) ?? WebhookEndpointStatus()
        return WebhookEnableResult(
            wasDisabled: endpoint.disabled,
            disabledAt: endpoint.disabledAt,
            disabledEvent: endpoint.disabledEvent,
            pending: try pending.namedRows.first?.int("pending") ?? 0,
            configured: endpoint.configured
        )
    }

    /// The order's webhook events, in the order written.
    static func webhookEvents(ofOrder orderID: String, in session: DatabaseSession) throws -> [WebhookEventSummary] {
        try session.execute(
            "SELECT \(WebhookEventSummary.columns) FROM iap.webhook_events w WHERE w.order_id = $1 ORDER BY w.seq",
            [orderID]
        ).namedRows.map(WebhookEventSummary.init(row:))
    }
}
