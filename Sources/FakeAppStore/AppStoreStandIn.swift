import Logging

/// A local stand-in for Apple's legacy `verifyReceipt` endpoints and for the
/// App Store Server API's Get Transaction Info and Get Transaction History, serving
/// ``SyntheticReceipt``s and registered ``SignedTransactionPayload``s over HTTP/1.1 with
/// scriptable failures and delays.
///
/// Serves on one port:
/// - `POST /verifyReceipt` (Production), `POST /sandbox/verifyReceipt` (Sandbox);
///   calls are available from ``recordedRequests()``.
/// - `GET /inApps/v1/transactions/{id}` (Production) and
///   `GET /sandbox/inApps/v1/transactions/{id}` (Sandbox). A bearer check failure
///   is a 401 with an empty body; over ``Configuration/serverAPIRateLimit`` a 429
///   `{"errorCode":4290000,…}` with `Retry-After` in UNIX milliseconds; a transaction
///   that is not registered, or belongs to the other environment, a 404
///   `{"errorCode":4040010,…}`; otherwise the transaction's script step (see
///   ``ScriptStep``), or 200 `{"signedTransactionInfo":"<JWS>"}` signed by
///   ``testChain`` with `signedDate` now. Calls are available from ``recordedServerAPIRequests()``.
/// - `GET /inApps/v2/history/{id}` and `GET /sandbox/inApps/v2/history/{id}`, with the same
///   bearer check and rate limit: for an id of a history registered with ``register(history:)``,
///   that history's transactions in the environment asked, ``Configuration/serverAPIHistoryPageSize``
///   a page, `{"revision":…,"hasMore":…,"bundleId":…,"environment":…,"signedTransactions":[…]}`;
///   the next page is asked with `?revision=` (an opaque token; a foreign one is error 4000005).
///   No transaction of it in that environment, or no history: 404 `{"errorCode":4040010,…}`.
/// - `POST /fake/transactions` with `{"transaction":{payload},"script":[steps]}`:
///   registers like ``register(_:script:)``, answers 204.
/// - `POST /fake/sign` with a payload: answers 200 with its JWS as text.
/// - Send Consumption Information v2, Get Notification History, and `POST /fake/notifications` (sending a signed
///   notification): see `AppStoreStandIn+Notifications.swift`.
/// - `GET /healthz`.
///
/// Anything else is a 404.
package final class AppStoreStandIn: Sendable {
    /// The chain every signed transaction is signed with; give the daemon its ``AppleTestChain/rootPEM`` to trust.
    package let testChain: AppleTestChain
    /// The chain app receipts for the `server_api` path are signed with (``AppReceiptBuilder``'s default,
    /// ``AppleReceiptTestChain/shared``); give the daemon its ``AppleReceiptTestChain/rootPEM`` as
    /// `APPLE_RECEIPT_ROOT_CA_FILE`.
    package let receiptChain = AppleReceiptTestChain.shared
    private let configuration: Configuration
    private let logger: Logger
    private let ledger: RequestLedger
    let serverAPILedger: ServerAPILedger
    /// Notifications sent and consumption information received (see `AppStoreStandIn+Notifications.swift`).
    let notificationLedger: ServerAPINotificationLedger
    /// Auto-renewable subscriptions (see `AppStoreStandIn+Subscriptions.swift`).
    let subscriptionBook = SubscriptionBook()
    private let listener: StandInListener

    /// Creates a stand-in; nothing is bound until ``start()``.
    package init(configuration: Configuration = .init(), logger: Logger = Logger(label: "fake-appstore")) {
        self.configuration = configuration
        self.logger = logger
        self.ledger = RequestLedger(configuration: configuration)
        self.serverAPILedger = ServerAPILedger(rateLimit: configuration.serverAPIRateLimit)
        listener = StandInListener(host: configuration.host, port: configuration.port)
        do {
            self.testChain = try AppleTestChain.generate()
        } catch {
            // Fixed names, fresh P-256 keys and in-range dates: generation cannot fail.
            preconditionFailure("AppleTestChain failed to generate: \(error)")
        }
        notificationLedger = ServerAPINotificationLedger(chain: testChain)
    }

    /// Binds and starts serving on `MultiThreadedEventLoopGroup.singleton`; returns the bound port.
    ///
    /// Calling it again while serving returns the same port.
    package func start() async throws -> Int {
        if let port = listener.servingPort { return port }
        let planner = AnswerPlanner(configuration: configuration, ledger: ledger)
        let serverAPI = ServerAPIPlanner(
            ledger: serverAPILedger,
            bearerCheck: ServerAPIBearerCheck(configuration: configuration),
            chain: testChain,
            historyPageSize: configuration.serverAPIHistoryPageSize,
            notifications: notificationLedger,
            subscriptions: subscriptionBook,
            latency: configuration.serverAPILatency
        )
        let logger = self.logger
        let port = try await listener.start {
            VerifyReceiptHandler(planner: planner, serverAPI: serverAPI, logger: logger)
        }
        logger.info("fake App Store listening", metadata: ["url": "\(productionURL)", "serverAPI": "\(serverAPIURL)"])
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

    /// `http://HOST:PORT/verifyReceipt`; the port is right once ``start()`` returned.
    package var productionURL: String {
        baseURL + "/verifyReceipt"
    }

    /// `http://HOST:PORT/sandbox/verifyReceipt`; the port is right once ``start()`` returned.
    package var sandboxURL: String {
        baseURL + "/sandbox/verifyReceipt"
    }

    /// Every verifyReceipt call received so far, in arrival order.
    package func recordedRequests() -> [RecordedRequest] {
        ledger.records()
    }

    /// Starts (`true`) or ends a simulated outage: while it lasts every call is answered HTTP 503.
    package func setOutage(_ on: Bool) {
        ledger.setOutage(on)
    }

    /// `http://HOST:PORT`, what the Server API paths and ``AppStoreStandIn/serverAPIURL`` hang off.
    var baseURL: String { listener.baseURL }
}
