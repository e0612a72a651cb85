import ArgumentParser
import Foundation
import ReceiptdCore

/// One `--flag` for every environment variable `run` reads; a flag wins over its variable.
struct SettingsOptions: ParsableArguments {
    @Option(help: "libpq connection string or URI (DATABASE_URL).") var databaseURL: String?
    @Option(help: "Production verifyReceipt URL (APPLE_VERIFY_URL).") var appleVerifyURL: String?
    @Option(help: "Sandbox verifyReceipt URL (APPLE_SANDBOX_VERIFY_URL).") var appleSandboxVerifyURL: String?
    @Option(help: "Shared secret; prefer the APPLE_SHARED_SECRET variable, flags show in `ps`.") var appleSharedSecret:
        String?
    @Option(help: "File holding the shared secret (APPLE_SHARED_SECRET_FILE).") var appleSharedSecretFile: String?
    @Option(help: "The app's bundle id, required (APPLE_BUNDLE_ID).") var appleBundleID: String?
    @Option(help: "accept or reject sandbox purchases (RECEIPTD_SANDBOX).") var sandbox: String?
    @Option(help: "ISO-8601 time; older purchases are never recorded as unclaimed (RECEIPTD_UNCLAIMED_SINCE).")
    var unclaimedSince: String?
    @Option(help: "PEM file of the roots signed transactions must chain to (APPLE_ROOT_CA_FILE).") var appleRootCAFile:
        String?
    @Option(
        help:
            "PEM file of the roots app receipts' signatures must chain to under server_api (APPLE_RECEIPT_ROOT_CA_FILE)."
    )
    var appleReceiptRootCAFile: String?
    @Option(help: "App Store Connect issuer id (APPLE_ISSUER_ID).") var appleIssuerID: String?
    @Option(help: "App Store Connect key id (APPLE_KEY_ID).") var appleKeyID: String?
    @Option(help: "The .p8 private key file (APPLE_PRIVATE_KEY_FILE).") var applePrivateKeyFile: String?
    @Option(help: "App Store Server API URL (APPLE_SERVER_API_URL).") var appleServerAPIURL: String?
    @Option(help: "App Store Server API sandbox URL (APPLE_SERVER_API_SANDBOX_URL).") var appleServerAPISandboxURL:
        String?
    @Option(help: "Server API requests per second to each endpoint, all daemons together (APPLE_SERVER_API_RATE).")
    var appleServerAPIRate: String?
    @Option(help: "verify_receipt or server_api (RECEIPTD_RECEIPT_VERIFIER).") var receiptVerifier: String?
    @Option(
        help:
            "reject or accept a transaction id whose purchase lacks the order's app account token (RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN)."
    )
    var transactionIDWithoutToken: String?
    @Option(help: "Google service-account JSON key file (GOOGLE_SERVICE_ACCOUNT_FILE).") var googleServiceAccountFile:
        String?
    @Option(help: "The app's Google Play package name (GOOGLE_PLAY_PACKAGE_NAME).") var googlePlayPackageName: String?
    @Option(help: "Android Publisher API URL (GOOGLE_PLAY_API_URL).") var googlePlayAPIURL: String?
    @Option(help: "acknowledge, consume or none after delivery (GOOGLE_PLAY_FINALIZE).") var googlePlayFinalize: String?
    @Option(help: "How often to poll voided purchases, e.g. 10m (GOOGLE_PLAY_VOIDED_INTERVAL).")
    var googlePlayVoidedInterval: String?
    @Option(help: "An acknowledgement owed this long is reported stuck, e.g. 1h (GOOGLE_PLAY_FINALIZE_OVERDUE).")
    var googlePlayFinalizeOverdue: String?
    @Option(help: "Google's published OIDC keys for push authentication (GOOGLE_OIDC_CERTS_URL).")
    var googleOIDCCertsURL: String?
    @Option(help: "The audience of the Pub/Sub push subscription's OIDC tokens (GOOGLE_PUBSUB_AUDIENCE).")
    var googlePubsubAudience: String?
    @Option(help: "The push subscription's service account (GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL).")
    var googlePubsubServiceAccountEmail: String?
    @Option(help: "off or on: grant trusted players' orders while their store fails (RECEIPTD_PROVISIONAL).")
    var provisional: String?
    @Option(help: "trusted or untrusted: an App Store player's first level (RECEIPTD_TRUST_INITIAL_APPLE).")
    var trustInitialApple: String?
    @Option(help: "trusted or untrusted: a Google Play player's first level (RECEIPTD_TRUST_INITIAL_GOOGLE).")
    var trustInitialGoogle: String?
    @Option(help: "Paid orders in a row that restore trust (RECEIPTD_TRUST_RESTORE_AFTER).")
    var trustRestoreAfter: String?
    @Option(
        help:
            "How long a trusted player's order fails before a provisional grant, e.g. 30s (RECEIPTD_PROVISIONAL_AFTER)."
    )
    var provisionalAfter: String?
    @Option(help: "Unconfirmed provisional grants per player (RECEIPTD_PROVISIONAL_LIMIT).")
    var provisionalLimit: String?
    @Option(help: "https URL the game server's webhooks are POSTed to; unset: off (RECEIPTD_WEBHOOK_URL).")
    var webhookURL: String?
    @Option(help: "File of whsec_ secrets, one a line, the first signing (RECEIPTD_WEBHOOK_SECRET_FILE).")
    var webhookSecretFile: String?
    @Option(help: "Apple requests in flight (RECEIPTD_CONCURRENCY).") var concurrency: String?
    @Option(help: "Attempts before an order fails (RECEIPTD_MAX_ATTEMPTS).") var maxAttempts: String?
    @Option(help: "Backoff base in seconds (RECEIPTD_BACKOFF_BASE).") var backoffBase: String?
    @Option(help: "Backoff cap in seconds (RECEIPTD_BACKOFF_MAX).") var backoffMax: String?
    @Option(help: "Seconds between polls (RECEIPTD_POLL_INTERVAL).") var pollInterval: String?
    @Option(help: "Seconds a purchase may predate its order (RECEIPTD_PURCHASE_SKEW).") var purchaseSkew: String?
    @Option(help: "Seconds before a silent daemon's jobs are reclaimed (RECEIPTD_LEASE).") var lease: String?
    @Option(help: "Seconds in-flight requests get on shutdown (RECEIPTD_SHUTDOWN_GRACE).") var shutdownGrace: String?
    @Option(help: "Keep finished jobs and attempts this long, e.g. 30d (RECEIPTD_RETENTION).") var retention: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical (RECEIPTD_LOG_LEVEL).") var logLevel: String?
    @Option(help: "json or text; default text at a terminal, json otherwise (RECEIPTD_LOG_FORMAT).") var logFormat:
        String?
    @Option(help: "host:port for /metrics, /healthz, /readyz; empty turns it off (RECEIPTD_METRICS_ADDR).")
    var metricsAddr: String?
    @Option(help: "host:port for POST /notifications/apple; empty or unset: off (RECEIPTD_NOTIFICATIONS_ADDR).")
    var notificationsAddr: String?

    /// The process environment with the given flags laid over it.
    func mergedEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        let flags: [(String, String?)] = [
            ("DATABASE_URL", databaseURL), ("APPLE_VERIFY_URL", appleVerifyURL),
            ("APPLE_SANDBOX_VERIFY_URL", appleSandboxVerifyURL), ("APPLE_SHARED_SECRET", appleSharedSecret),
            ("APPLE_SHARED_SECRET_FILE", appleSharedSecretFile),
            ("APPLE_BUNDLE_ID", appleBundleID), ("APPLE_ROOT_CA_FILE", appleRootCAFile),
            ("APPLE_RECEIPT_ROOT_CA_FILE", appleReceiptRootCAFile), ("APPLE_ISSUER_ID", appleIssuerID),
            ("APPLE_KEY_ID", appleKeyID), ("APPLE_PRIVATE_KEY_FILE", applePrivateKeyFile),
            ("APPLE_SERVER_API_URL", appleServerAPIURL),
            ("APPLE_SERVER_API_SANDBOX_URL", appleServerAPISandboxURL), ("APPLE_SERVER_API_RATE", appleServerAPIRate),
            ("RECEIPTD_RECEIPT_VERIFIER", receiptVerifier),
            ("RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN", transactionIDWithoutToken),
            ("GOOGLE_SERVICE_ACCOUNT_FILE", googleServiceAccountFile),
            ("GOOGLE_PLAY_PACKAGE_NAME", googlePlayPackageName), ("GOOGLE_PLAY_API_URL", googlePlayAPIURL),
            ("GOOGLE_PLAY_FINALIZE", googlePlayFinalize), ("GOOGLE_PLAY_VOIDED_INTERVAL", googlePlayVoidedInterval),
            ("GOOGLE_PLAY_FINALIZE_OVERDUE", googlePlayFinalizeOverdue), ("GOOGLE_OIDC_CERTS_URL", googleOIDCCertsURL),
            ("GOOGLE_PUBSUB_AUDIENCE", googlePubsubAudience),
            ("GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL", googlePubsubServiceAccountEmail), ("RECEIPTD_SANDBOX", sandbox),
            ("RECEIPTD_UNCLAIMED_SINCE", unclaimedSince), ("RECEIPTD_PROVISIONAL", provisional),
            ("RECEIPTD_TRUST_INITIAL_APPLE", trustInitialApple), ("RECEIPTD_TRUST_INITIAL_GOOGLE", trustInitialGoogle),
            ("RECEIPTD_TRUST_RESTORE_AFTER", trustRestoreAfter), ("RECEIPTD_PROVISIONAL_AFTER", provisionalAfter),
            ("RECEIPTD_PROVISIONAL_LIMIT", provisionalLimit), ("RECEIPTD_WEBHOOK_URL", webhookURL),
            ("RECEIPTD_WEBHOOK_SECRET_FILE", webhookSecretFile), ("RECEIPTD_CONCURRENCY", concurrency),
            ("RECEIPTD_MAX_ATTEMPTS", maxAttempts),
            ("RECEIPTD_BACKOFF_BASE", backoffBase), ("RECEIPTD_BACKOFF_MAX", backoffMax),
            ("RECEIPTD_POLL_INTERVAL", pollInterval),
            ("RECEIPTD_PURCHASE_SKEW", purchaseSkew), ("RECEIPTD_LEASE", lease),
            ("RECEIPTD_SHUTDOWN_GRACE", shutdownGrace),
            ("RECEIPTD_RETENTION", retention),
            ("RECEIPTD_LOG_LEVEL", logLevel), ("RECEIPTD_LOG_FORMAT", logFormat),
            ("RECEIPTD_METRICS_ADDR", metricsAddr),
            ("RECEIPTD_NOTIFICATIONS_ADDR", notificationsAddr),
        ]
        for case let (name, value?) in flags { environment[name] = value }
        return environment
    }

    /// Reads the settings, or exits with status 78 (EX_CONFIG) and a message naming the variable.
    func settings() throws -> ReceiptdSettings {
        do {
            return try ReceiptdSettings(environment: mergedEnvironment())
        } catch {
            FileHandle.standardError.write(Data("receiptd: configuration error: \(error)\n".utf8))
            throw ExitCode(78)
        }
    }
}
