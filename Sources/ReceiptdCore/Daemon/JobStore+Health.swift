extension JobStore {
    /// Records in `iap.daemons.paused_apis` the store APIs whose jobs this daemon's claims skip now.
    func publishPausedAPIs(_ apis: [StoreAPI]) async throws {
        try await pool.execute(
            """
            INSERT INTO iap.daemons (daemon, paused_apis) VALUES ($1, $2::text[])
            ON CONFLICT (daemon) DO UPDATE SET paused_apis = excluded.paused_apis
            """,
            [owner, "{" + apis.map(\.rawValue).joined(separator: ",") + "}"]
        )
    }
}
