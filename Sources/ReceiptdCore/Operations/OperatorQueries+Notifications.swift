extension OperatorQueries {
    /// Store notifications matching `filter`, newest first, without their payloads.
    package func notifications(_ filter: NotificationFilter) async throws -> [NotificationSummary] {
        let result = try await connection.execute(
            """
            SELECT \(NotificationSummary.columns)
            FROM iap.store_notifications n
            WHERE ($1::text IS NULL OR n.store = $1)
              AND ($2::text IS NULL OR lower(n.notification_type) = lower($2))
              AND (($3::timestamptz IS NULL AND $4::int IS NULL)
                   OR n.received_at >= coalesce($3::timestamptz, now() - make_interval(secs => $4::int)))
            ORDER BY n.received_at DESC, n.id DESC
            LIMIT $5
            """,
            [filter.store, filter.type, filter.since?.instantText, filter.since?.secondsAgoValue, filter.limit]
        )
        return try result.namedRows.map(NotificationSummary.init(row:))
    }
}
