import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A local stand-in for Google Play's Android Publisher API and OAuth token endpoint, for tests, the demo and
/// load runs (never production): `purchases.products.get` for ``SyntheticPurchaseToken``s, acknowledge and
/// consume, voided purchases, and a token endpoint that checks RS256 assertions against its own service account.
public final class GooglePlayStandIn: Sendable {
    /// Where it listens and how it answers.
    public struct Configuration: Sendable {
        /// Address to bind.
        public var host: String
        /// Port to bind; 0 picks a free one.
        public var port: Int
        /// The only package it knows; others are answered 403.
        public var packageName: String
        /// Seconds an access token lives.
        public var accessTokenLifetimeSeconds: Int
        /// Voided purchases per page.
        public var voidedPageSize: Int

        /// Creates a configuration.
        public init(host: String = "127.0.0.1", port: Int = 0, packageName: String = "com.example.game",
                    accessTokenLifetimeSeconds: Int = 3600, voidedPageSize: Int = 1000) {
            self.host = host
            self.port = port
            self.packageName = packageName
            self.accessTokenLifetimeSeconds = accessTokenLifetimeSeconds
            self.voidedPageSize = voidedPageSize
        }
    }

    /// The service account whose assertions it accepts.
    public let serviceAccount: GoogleServiceAccountKey
    let configuration: Configuration
    let ledger = GooglePlayLedger()
    private let logger: Logger
    private let listener = Mutex<(any Channel)?>(nil)
    private let boundPort = Mutex<Int?>(nil)

    /// Creates a stand-in with a fresh service account; nothing is bound until ``start()``.
    public init(configuration: Configuration = .init(), logger: Logger = Logger(label: "fake-googleplay")) throws {
        self.configuration = configuration
        self.logger = logger
        serviceAccount = try GoogleServiceAccountKey.generate()
    }

    /// Binds and serves; returns the port.
    public func start() async throws -> Int {
        if let port = boundPort.withLock({ $0 }), listener.withLock({ $0 != nil }) { return port }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(GooglePlayHandler(standIn: self))
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        listener.withLock { $0 = channel }
        boundPort.withLock { $0 = channel.localAddress?.port ?? configuration.port }
        logger.info("fake Google Play listening", metadata: ["url": "\(baseURL)"])
        return boundPort.withLock { $0 } ?? configuration.port
    }

    /// Stops listening.
    public func shutdown() async throws {
        if let channel = listener.withLock({ $0.take() }) {
            try await channel.close()
        }
    }

    /// Serves until the calling task is cancelled (for the CLI).
    public func run() async throws {
        _ = try await start()
        guard let channel = listener.withLock({ $0 }) else { return }
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// `http://HOST:PORT`: the daemon's `GOOGLE_PLAY_API_URL`.
    public var baseURL: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(boundPort.withLock { $0 } ?? configuration.port)"
    }

    /// The token endpoint, as the service-account file names it.
    public var tokenURL: String { baseURL + "/token" }

    /// The package it serves.
    public var packageName: String { configuration.packageName }

    /// Writes the service-account key file (mode 0600), naming this stand-in's token endpoint; after ``start()``.
    public func writeServiceAccount(toFile path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(serviceAccount.json(tokenURI: tokenURL).utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    /// Makes every access token issued so far invalid: the next API call is answered 401.
    public func revokeAccessTokens() { ledger.revokeAccessTokens() }

    /// The next `count` acknowledge or consume calls fail with `status`.
    public func failFinalizations(_ count: Int, status: Int = 503) { ledger.failFinalizations(count, status: status) }

    /// Voids a purchase: `voidedpurchases.list` reports it from now on.
    public func void(token: String, orderID: String?, reason: Int = 1, at date: Date = Date()) {
        let milliseconds = Int64(date.timeIntervalSince1970 * 1000)
        ledger.void(.init(token: token, orderID: orderID, reason: reason, voidedMilliseconds: milliseconds,
                          purchaseMilliseconds: SyntheticPurchaseToken(token: token)?.purchaseTimeMilliseconds ?? milliseconds))
    }

    /// Every acknowledge and consume call.
    public func recordedFinalizations() -> [RecordedGoogleFinalization] { ledger.finalizations }
    /// Every `purchases.products.get` call.
    public func recordedPurchaseQueries() -> [RecordedGooglePurchaseQuery] { ledger.queries }
    /// Every token request.
    public func recordedTokenRequests() -> [RecordedGoogleTokenRequest] { ledger.tokenRequests }
}
