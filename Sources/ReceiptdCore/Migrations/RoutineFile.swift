/// One repeatable file under `sql/routines/`: functions, views, roles or grants, which hold no data. Every
/// `receiptd migrate` applies all of them, in name order and in one transaction, after the migrations.
package struct RoutineFile: Sendable {
    /// The file's name (`01_checks.sql`); the files run in the order of their names.
    package let fileName: String
    /// The file's SQL.
    package let sql: String

    init(_ fileName: String, bytes: [UInt8]) {
        self.fileName = fileName
        sql = String(decoding: bytes, as: UTF8.self)
    }

    /// Every routine file this binary knows, in name order. A new file in `sql/routines/` is added here and to
    /// `Package.swift`'s resources (a test checks that the folder and this list agree).
    package static let all: [RoutineFile] = [
        // SwiftPM names an embedded file after its name with the first character made `_` when it is a digit.
        RoutineFile("00_retired_signatures.sql", bytes: PackageResources._0_retired_signatures_sql),
        RoutineFile("01_checks.sql", bytes: PackageResources._1_checks_sql),
        RoutineFile("02_enqueue.sql", bytes: PackageResources._2_enqueue_sql),
        RoutineFile("03_game_api.sql", bytes: PackageResources._3_game_api_sql),
        RoutineFile("04_operator_api.sql", bytes: PackageResources._4_operator_api_sql),
        RoutineFile("05_views.sql", bytes: PackageResources._5_views_sql),
        RoutineFile("06_retention.sql", bytes: PackageResources._6_retention_sql),
        RoutineFile("07_notifications.sql", bytes: PackageResources._7_notifications_sql),
        RoutineFile("08_trust.sql", bytes: PackageResources._8_trust_sql),
        RoutineFile("09_webhooks.sql", bytes: PackageResources._9_webhooks_sql),
        RoutineFile("10_roles_and_grants.sql", bytes: PackageResources._0_roles_and_grants_sql),
    ]
}
