// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "receiptd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "receiptd", targets: ["receiptd"])
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Already in the graph through async-http-client; named here only so the TLS tests can serve HTTPS.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // StoreKit 2: X.509 chains of signed transactions, ES256 signatures and the App Store Server API's JWT.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // The support console (`receiptd console`): its HTTP server, and bcrypt for its users file. No default traits:
        // the console reads its settings as the daemon does, not through swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Already in the graph through Hummingbird; named here for the HTTP parts the intake's connection policy sees.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        // `swift package generate-documentation` renders the reference articles (Sources/ReceiptdCore/ReceiptdCore.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(
            name: "ReceiptdCore",
            dependencies: [
                "CLibPQ",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 for Google's service-account assertions.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                // The metrics, health and notification endpoints: the same HTTP stack as the console.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            resources: [
                .embedInCode("SQL/routines/00_retired_signatures.sql"),
                .embedInCode("SQL/routines/01_checks.sql"),
                .embedInCode("SQL/routines/02_enqueue.sql"),
                .embedInCode("SQL/routines/03_game_api.sql"),
                .embedInCode("SQL/routines/04_operator_api.sql"),
                .embedInCode("SQL/routines/05_views.sql"),
                .embedInCode("SQL/routines/06_retention.sql"),
                .embedInCode("SQL/routines/07_notifications.sql"),
                .embedInCode("SQL/routines/08_trust.sql"),
                .embedInCode("SQL/routines/09_webhooks.sql"),
                .embedInCode("SQL/routines/10_roles_and_grants.sql"),
                .embedInCode("SQL/migrations/0001_initial.sql"),
                .embedInCode("SQL/migrations/0002_hardening.sql"),
                .embedInCode("SQL/migrations/0003_lean_write_path.sql"),
                .embedInCode("SQL/migrations/0004_order_lifecycle.sql"),
                .embedInCode("SQL/migrations/0005_storekit2.sql"),
                .embedInCode("SQL/migrations/0006_google_play.sql"),
                .embedInCode("SQL/migrations/0007_unclaimed_original_id.sql"),
                .embedInCode("SQL/migrations/0008_operations_health.sql"),
                .embedInCode("SQL/migrations/0009_paused_apis.sql"),
                .embedInCode("SQL/migrations/0010_store_notifications.sql"),
                .embedInCode("SQL/migrations/0011_google_notifications.sql"),
                .embedInCode("SQL/migrations/0012_trust_levels.sql"),
                .embedInCode("SQL/migrations/0013_webhooks.sql"),
                .embedInCode("SQL/migrations/0014_operator_actions.sql"),
                .embedInCode("SQL/migrations/0015_console_indexes.sql"),
                .embedInCode("SQL/migrations/0016_ledger_store_time.sql"),
                .embedInCode("SQL/migrations/0017_consent_rescinded.sql"),
                .embedInCode("SQL/migrations/0018_sql_rules.sql"),
                .embedInCode("SQL/migrations/0019_lean_enqueue.sql"),
                .embedInCode("SQL/migrations/0020_product_catalogue.sql"),
                .embedInCode("SQL/migrations/0021_refund_requests.sql"),
                .embedInCode("SQL/migrations/0022_subscriptions.sql"),
                .embedInCode("SQL/migrations/0023_subscription_reads.sql"),
                .embedInCode("SQL/migrations/0024_subscription_transfers.sql"),
                .embedInCode("SQL/migrations/0025_google_subscriptions.sql"),
                .embedInCode("SQL/migrations/0026_login_and_purge.sql"),
                .embedInCode("SQL/migrations/0027_reinstated_shares.sql"),
                .embedInCode("SQL/migrations/0028_unconfirmed_refund_answers.sql"),
                .embedInCode("SQL/migrations/0029_subscription_read_retries.sql"),
                .embedInCode("SQL/migrations/0030_api_pacing_per_endpoint.sql"),
                .embedInCode("SQL/migrations/0031_notification_claim_order.sql"),
                // Apple Root CA - G3, the default trust anchor of signed transactions (a public certificate).
                .embedInCode("Resources/AppleRootCA-G3.pem"),
                // Apple Inc. Root (RSA), the trust anchor of app receipts' PKCS#7 signatures (a public certificate).
                .embedInCode("Resources/AppleIncRootCertificate.pem"),
            ]
        ),
        // The support console: server-rendered pages over the operator's role, served by `receiptd console`.
        .target(
            name: "ReceiptdConsole",
            dependencies: [
                "ReceiptdCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [
                .embedInCode("Assets/console.css"),
                .embedInCode("Assets/console.js"),
            ]
        ),
        // What only the tests, the demo and the load tools use: a throwaway PostgreSQL and the processes around it.
        .target(
            name: "ReceiptdTestKit",
            dependencies: [
                // The WebDriver client that drives chromium in the console's browser tests.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "FakeAppStore",
            dependencies: [
                // Test support may use production code (its Base64URL), never the other way round.
                "ReceiptdCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Posting signed notifications to the intake.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 for Google's service-account assertions.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "ReceiptdTools",
            dependencies: [
                "ReceiptdCore",
                "ReceiptdTestKit",
                "FakeAppStore",
                // `receiptd demo --console` and the console's benchmark row.
                "ReceiptdConsole",
                // The demo console's user, hashed as `receiptd console add-user` hashes one.
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .executableTarget(
            name: "receiptd",
            dependencies: [
                "ReceiptdCore",
                "ReceiptdTools",
                "ReceiptdConsole",
                "FakeAppStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // jemalloc replaces glibc's malloc for the whole process: the HTTP client's many small, short-lived
            // buffers made glibc's free lists (malloc_consolidate, unlink_chunk) about a tenth of the daemon's CPU.
            linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]
        ),
        .testTarget(
            name: "ReceiptdCoreTests",
            dependencies: [
                "ReceiptdCore",
                // The console's pure parts: HTML escaping, the users file, the sign-in limit.
                "ReceiptdConsole",
                // Receipts signed by a test chain shaped like Apple's, for the receipt signature rules.
                "FakeAppStore",
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 for Google's service-account assertions.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Transport errors, for which failures may have reached a store.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "FakeAppStoreTests",
            dependencies: [
                "FakeAppStore",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 for Google's service-account assertions.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ReceiptdIntegrationTests",
            dependencies: [
                "ReceiptdCore",
                "ReceiptdTestKit",
                "FakeAppStore",
                "ReceiptdTools",
                "ReceiptdConsole",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ]
)
