import Foundation
import Logging
import Synchronization

/// A local stand-in for Google Play's Android Publisher API and OAuth 2.0 token endpoint, serving
/// ``SyntheticPurchaseToken``s, for tests, the demo and load runs (never production).
///
/// Serves on one port:
/// - `POST /token`, the JWT bearer grant: an assertion ``GoogleAssertionCheck`` accepts (RS256 by
///   ``serviceAccount``, `aud` ``tokenURL``, …) gets 200 `{"access_token":…,"expires_in":…,"token_type":"Bearer"}`;
///   any other 400 `{"error":"invalid_grant","error_description":<why>}`. See ``recordedTokenRequests()``.
/// - Under `/androidpublisher/v3/applications/{package}/purchases/`, every call wanting an access token issued here,
///   live and not revoked (else 401 with Google's error JSON), and ``Configuration/packageName`` (else 403):
///   - `GET products/{productId}/tokens/{token}`: during ``failPurchaseLookups(status:)`` that status; a token that is
///     not synthetic is 404; then the token's script
///     step; a product other than the token's is 400; else 200 `androidpublisher#productPurchase`.
///     See ``recordedPurchaseQueries()``.
///   - `POST products/{productId}/tokens/{token}:acknowledge` (200 `{}`) and `:consume` (200, empty body):
///     the next failure set by ``failFinalizations(_:status:)`` first; a purchase not purchased (yet) is 400
///     `FAILED_PRECONDITION`. Repeating one is answered 200 again. See ``recordedFinalizations()``.
///   - `GET voidedpurchases?startTime=&endTime=&maxResults=&token=`: what ``void(token:orderID:reason:at:quantity:)``
///     registered, oldest first, paged; `{}` when there is none. See ``recordedVoidedQueries()``.
/// - `GET /oauth2/v3/certs`: ``oidc``'s published keys (JWKS) with `Cache-Control: public, max-age=…`
///   (``setJWKSMaxAge(_:)``), as Google serves the keys Pub/Sub push tokens are signed with; see ``jwksFetches()``.
/// - `POST /fake/void` `{"token":…,"order_id":…,"reason":1,"voided_time_ms":…,"quantity":…}`: voids (a partial
///   refund of `quantity` units) for other processes; 204.
/// - `POST /fake/rtdn`: pushes a real-time developer notification signed by ``oidc`` to a URL (see
///   ``push(_:to:audience:messageID:email:)``); 200 with what the URL answered.
/// - `GET /healthz`.
///
/// Anything else is a 404.
package final class GooglePlayStandIn: Sendable {
    /// The service account whose assertions the token endpoint accepts; give the daemon ``writeServiceAccount(toFile:)``'s file.
    package let serviceAccount: GoogleServiceAccountKey
    /// The OIDC issuer of push tokens; its keys are served at ``oidcCertsURL``.
    package let oidc = GoogleOIDCIssuer()
    let configuration: Configuration
    let ledger = GooglePlayLedger()
    /// The subscriptions sold, by purchase token.
    let subscriptionBook = GoogleSubscriptionBook()
    /// The per-minute query quota, when configured.
    let quota: GoogleQueryQuota
    /// JWKS fetches so far, and the `max-age` they are served with.
    let jwksServing = Mutex((fetches: 0, maxAge: 3600))
    private let logger: Logger
    private let listener: StandInListener

    /// Creates a stand-in with a fresh service account; nothing is bound until ``start()``.
    package init(configuration: Configuration = .init(), logger: Logger = Logger(label: "fake-googleplay")) {
        self.configuration = configuration
        self.logger = logger
        quota = GoogleQueryQuota(perMinute: configuration.queriesPerMinute)
        listener = StandInListener(host: configuration.host, port: configuration.port)
        do {
            serviceAccount = try GoogleServiceAccountKey.generate()
        } catch {
            // A fresh RSA 2048 key: generation fails only if the platform's crypto is broken.
            preconditionFailure("GoogleServiceAccountKey failed to generate: \(error)")
        }
    }

    /// Binds and starts serving on `MultiThreadedEventLoopGroup.singleton`; returns the bound port.
    ///
    /// Calling it again while serving returns the same port.
    package func start() async throws -> Int {
        if let port = listener.servingPort { return port }
        let logger = self.logger
        let port = try await listener.start { GooglePlayHandler(standIn: self, logger: logger) }
        logger.info(
            "fake Google Play listening",
            metadata: ["url": "\(baseURL)", "package": "\(configuration.packageName)"]
        )
        return port
    }

    /// Closes the listening channel and every open connection.
    package func shutdown() async throws {
        try await listener.shutdown()
    }

    /// Starts, serves until the surrounding task is cancelled, then shuts down. For the CLI.
    package func run() async throws {
        _ = try await start()
        await listener.waitUntilClosed()
        try await shutdown()
    }

    /// `http://HOST:PORT`, the daemon's `GOOGLE_PLAY_API_URL`; the port is right once ``start()`` returned.
    package var baseURL: String { listener.baseURL }

    /// `baseURL + "/token"`: the key file's `token_uri`, and the `aud` assertions must name.
    package var tokenURL: String {
        baseURL + "/token"
    }

    /// The only package served (``Configuration/packageName``).
    package var packageName: String {
        configuration.packageName
    }

    /// Writes ``serviceAccount`` as a key file naming ``tokenURL`` (so after ``start()``), readable by its owner only
    /// (mode 0600), replacing any file there.
    package func writeServiceAccount(toFile path: String) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            try manager.removeItem(atPath: path)
        }
        // Created with its final mode, so the key is never readable by others, even briefly.
        guard
            manager.createFile(
                atPath: path,
                contents: Data(serviceAccount.json(tokenURI: tokenURL).utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Makes every access token issued so far invalid: calls bearing one are answered 401 until a new one is granted.
    package func revokeAccessTokens() {
        ledger.revokeAccessTokens()
    }

    /// Answers the next `count` acknowledge or consume calls (past the bearer and package checks) with `status` and
    /// Google's error body for it, without effect; 0 ends a run of failures early.
    package func failFinalizations(_ count: Int, status: Int = 503) {
        ledger.failFinalizations(count, status: status)
    }

    /// Answers the next `count` `voidedpurchases.list` calls (past the bearer and package checks) with `status` and
    /// Google's error body for it; 0 ends a run of failures early.
    package func failVoidedQueries(_ count: Int, status: Int = 400) {
        ledger.failVoidedQueries(count, status: status)
    }

    /// Makes every `purchases.products.get` past the bearer check answer `status` with Google's error body for it
    /// (403: a service account not yet granted; 503: an outage), without counting a lookup; `nil` ends the outage.
    package func failPurchaseLookups(status: Int?) {
        ledger.failLookups(status: status)
    }

    /// Voids a purchase: `voidedpurchases.list` reports it from then on, with `voidedTimeMillis` `date` and
    /// `purchaseTimeMillis` the synthetic token's (else when the stand-in first saw the token, else `date`).
    /// With `quantity`, a quantity-based partial refund of that many units: listed with its `voidedQuantity`, and
    /// only to a call with `includeQuantityBasedPartialRefund=true`, as Google does.
    package func void(token: String, orderID: String?, reason: Int = 1, at date: Date = Date(), quantity: Int? = nil) {
        ledger.void(
            token: token,
            orderID: orderID,
            reason: reason,
            purchaseMilliseconds: SyntheticPurchaseToken(token: token)?.purchaseTimeMilliseconds,
            voidedMilliseconds: Int64(date.timeIntervalSince1970 * 1000),
            quantity: quantity
        )
    }

    /// Every acknowledge and consume call received so far, refused ones too, in arrival order.
    package func recordedFinalizations() -> [RecordedGoogleFinalization] {
        ledger.finalizations
    }

    /// Every purchase lookup (productsv2 or `purchases.products.get`) received so far, in arrival order.
    package func recordedPurchaseQueries() -> [RecordedGooglePurchaseQuery] {
        ledger.queries
    }

    /// Every token endpoint call received so far, in arrival order.
    package func recordedTokenRequests() -> [RecordedGoogleTokenRequest] {
        ledger.tokenRequests
    }

    /// Every `orders.get` call received so far, in arrival order.
    package func recordedOrderQueries() -> [RecordedGoogleOrderQuery] {
        ledger.orderQueries
    }

    /// Every `voidedpurchases.list` call received so far, in arrival order.
    package func recordedVoidedQueries() -> [RecordedGoogleVoidedQuery] {
        ledger.voidedQueries
    }
}
