extension GooglePlayStandIn {
    /// Where the stand-in Google Play listens and how it answers.
    package struct Configuration: Sendable {
        /// Address to bind.
        package var host: String
        /// Port to bind; 0 picks a free one.
        package var port: Int
        /// The only package it serves; calls for another are answered 403.
        package var packageName: String
        /// Seconds an access token lives (`expires_in`).
        package var accessTokenLifetimeSeconds: Int
        /// Wait before every answer of the token endpoint and the API, in milliseconds, on top of any `delay_ms`.
        package var latency: Int
        /// Voided purchases a page at most, whatever `maxResults` asks.
        package var voidedPageSize: Int
        /// Android Publisher API calls allowed in any rolling minute, the rest answered 429 (Google's default quota
        /// is 3,000); nil: no limit.
        package var queriesPerMinute: Int?

        /// Creates a configuration; the defaults serve `com.example.game` on a free port of the loopback.
        package init(
            host: String = "127.0.0.1",
            port: Int = 0,
            packageName: String = "com.example.game",
            accessTokenLifetimeSeconds: Int = 3600,
            latency: Int = 0,
            voidedPageSize: Int = 1000,
            queriesPerMinute: Int? = nil
        ) {
            self.host = host
            self.port = port
            self.packageName = packageName
            self.accessTokenLifetimeSeconds = accessTokenLifetimeSeconds
            self.latency = latency
            self.voidedPageSize = voidedPageSize
            self.queriesPerMinute = queriesPerMinute
        }
    }
}
