/// One numbered, immutable schema change under `sql/migrations/`, embedded in the binary at build time.
///
/// Once applied to a database it must never change: `iap.schema_migrations` keeps its checksum, and
/// `receiptd migrate` refuses a database whose recorded checksum differs from the file's.
package struct Migration: Sendable {
    /// The number in the file name (`0002_hardening.sql` is 2); migrations run in this order.
    package let version: Int
    /// The rest of the file name (`hardening`).
    package let name: String
    /// The file's SQL.
    package let sql: String

    init(version: Int, name: String, bytes: [UInt8]) {
        self.version = version
        self.name = name
        sql = String(decoding: bytes, as: UTF8.self)
    }

    /// Every migration this binary knows, in order. A new file in `sql/migrations/` is added here and to
    /// `Package.swift`'s resources (a test checks that the folder and this list agree).
    package static let all: [Migration] = [
        // SwiftPM names an embedded file after its name with the first character made `_` when it is a digit.
        Migration(version: 1, name: "initial", bytes: PackageResources._001_initial_sql),
        Migration(version: 2, name: "hardening", bytes: PackageResources._002_hardening_sql),
        Migration(version: 3, name: "lean_write_path", bytes: PackageResources._003_lean_write_path_sql),
        Migration(version: 4, name: "order_lifecycle", bytes: PackageResources._004_order_lifecycle_sql),
        Migration(version: 5, name: "storekit2", bytes: PackageResources._005_storekit2_sql),
        Migration(version: 6, name: "google_play", bytes: PackageResources._006_google_play_sql),
        Migration(version: 7, name: "unclaimed_original_id", bytes: PackageResources._007_unclaimed_original_id_sql),
        Migration(version: 8, name: "operations_health", bytes: PackageResources._008_operations_health_sql),
        Migration(version: 9, name: "paused_apis", bytes: PackageResources._009_paused_apis_sql),
        Migration(version: 10, name: "store_notifications", bytes: PackageResources._010_store_notifications_sql),
        Migration(version: 11, name: "google_notifications", bytes: PackageResources._011_google_notifications_sql),
        Migration(version: 12, name: "trust_levels", bytes: PackageResources._012_trust_levels_sql),
        Migration(version: 13, name: "webhooks", bytes: PackageResources._013_webhooks_sql),
        Migration(version: 14, name: "operator_actions", bytes: PackageResources._014_operator_actions_sql),
        Migration(version: 15, name: "console_indexes", bytes: PackageResources._015_console_indexes_sql),
        Migration(version: 16, name: "ledger_store_time", bytes: PackageResources._016_ledger_store_time_sql),
        Migration(version: 17, name: "consent_rescinded", bytes: PackageResources._017_consent_rescinded_sql),
        Migration(version: 18, name: "sql_rules", bytes: PackageResources._018_sql_rules_sql),
        Migration(version: 19, name: "lean_enqueue", bytes: PackageResources._019_lean_enqueue_sql),
        Migration(version: 20, name: "product_catalogue", bytes: PackageResources._020_product_catalogue_sql),
        Migration(version: 21, name: "refund_requests", bytes: PackageResources._021_refund_requests_sql),
        Migration(version: 22, name: "subscriptions", bytes: PackageResources._022_subscriptions_sql),
        Migration(version: 23, name: "subscription_reads", bytes: PackageResources._023_subscription_reads_sql),
        Migration(
            version: 24,
            name: "subscription_transfers",
            bytes: PackageResources._024_subscription_transfers_sql
        ),
        Migration(
            version: 25,
            name: "google_subscriptions",
            bytes: PackageResources._025_google_subscriptions_sql
        ),
        Migration(version: 26, name: "login_and_purge", bytes: PackageResources._026_login_and_purge_sql),
        Migration(
            version: 27,
            name: "reinstated_shares",
            bytes: PackageResources._027_reinstated_shares_sql
        ),
        Migration(
            version: 28,
            name: "unconfirmed_refund_answers",
            bytes: PackageResources._028_unconfirmed_refund_answers_sql
        ),
        Migration(
            version: 29,
            name: "subscription_read_retries",
            bytes: PackageResources._029_subscription_read_retries_sql
        ),
        Migration(
            version: 30,
            name: "api_pacing_per_endpoint",
            bytes: PackageResources._030_api_pacing_per_endpoint_sql
        ),
        Migration(
            version: 31,
            name: "notification_claim_order",
            bytes: PackageResources._031_notification_claim_order_sql
        ),
    ]

    /// The schema version this binary's daemon needs.
    package static var latestVersion: Int { all.last?.version ?? 0 }
}
