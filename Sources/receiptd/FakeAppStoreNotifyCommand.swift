import ArgumentParser
import FakeAppStore
import Foundation

/// `receiptd fake-appstore notify`: has a running stand-in sign an App Store Server Notification V2 of any type
/// for any transaction, keep it in its notification history and post it to a URL (the intake), for demos and tests.
struct FakeAppStoreNotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Have a running fake-appstore sign a notification, keep it in its history and post it to --url.",
        discussion: """
            Prints the stand-in's answer as JSON: notificationUUID, signedPayload, delivered, httpStatus (what --url \
            answered) and error. Exits 0 when the target answered 2xx (or with --no-deliver), 1 otherwise.
            """
    )

    @Option(help: ArgumentHelp("The running stand-in, http://HOST:PORT.", valueName: "url"))
    var standIn = "http://127.0.0.1:8089"
    @Option(help: ArgumentHelp("Where to post it, e.g. http://127.0.0.1:8443/notifications/apple.", valueName: "url"))
    var url: String?
    @Flag(
        inversion: .prefixedNo,
        help: "Post it (--no-deliver keeps it in the stand-in's notification history only, as if the intake was down)."
    )
    var deliver = true
    @Option(
        help:
            "notificationType: REFUND, REFUND_DECLINED, REFUND_REVERSED, REVOKE, CONSUMPTION_REQUEST, ONE_TIME_CHARGE, TEST, …"
    )
    var type: String
    @Option(help: "The notification's subtype.") var subtype: String?
    @Option(help: "The transaction it is about (none: no signedTransactionInfo, as for TEST).") var transactionId:
        String?
    @Option(help: "The transaction's originalTransactionId (default: its transactionId).")
    var originalTransactionId: String?
    @Option(help: "The transaction's productId.") var productId = "gems"
    @Option(help: "The transaction's quantity.") var quantity = 1
    @Option(help: "The transaction's appAccountToken (a UUID).") var appAccountToken: String?
    @Option(help: "Production or Sandbox (the notification's and the transaction's).") var environment = "Production"
    @Option(help: "revocationDate in milliseconds since 1970 (default for REFUND and REVOKE: now).")
    var revocationDate: Int64?
    @Option(help: "revocationReason: 0 other, 1 an issue in the app (default for REFUND and REVOKE: 0).")
    var revocationReason: Int?
    @Option(help: "revocationType: REFUND_FULL, REFUND_PRORATED or FAMILY_REVOKE.") var revocationType: String?
    @Option(help: "revocationPercentage, in thousandths of a percent (50000 is half).") var revocationPercentage: Int?
    @Option(help: "data.consumptionRequestReason (CONSUMPTION_REQUEST's default: UNINTENDED_PURCHASE).")
    var consumptionRequestReason: String?
    @Option(help: "The notificationUUID (default: a fresh one; the same again is a retry).") var notificationUuid:
        String?
    @Option(help: "data.bundleId (and the transaction's).") var bundleId = SyntheticReceipt.defaultBundleID
    @Option(help: "data.appAppleId.") var appAppleId: Int64?
    @Option(
        help: "An app transaction's id: the notification carries appData with it signed, not data (RESCIND_CONSENT)."
    )
    var appTransactionId: String?

    func validate() throws {
        if deliver && url == nil { throw ValidationError("--url is required unless --no-deliver is given") }
        guard ["Production", "Sandbox"].contains(environment) else {
            throw ValidationError("--environment must be Production or Sandbox, got \(environment)")
        }
    }

    func run() async throws {
        let revokes = ["REFUND", "REVOKE"].contains(type)
        let transaction = transactionId.map { id in
            SignedTransactionPayload(
                transactionId: id,
                originalTransactionId: originalTransactionId,
                bundleId: bundleId,
                productId: productId,
                quantity: quantity,
                environment: environment,
                appAccountToken: appAccountToken?.lowercased(),
                revocationDate: revocationDate ?? (revokes ? SignedTransactionPayload.nowMilliseconds() : nil),
                revocationReason: revocationReason ?? (revokes ? 0 : nil),
                revocationType: revocationType,
                revocationPercentage: revocationPercentage
            )
        }
        let result = try await AppStoreStandIn.requestNotification(
            standInURL: standIn,
            ServerAPINotificationOrder(
                notificationType: type,
                subtype: subtype,
                transaction: transaction,
                environment: environment,
                consumptionRequestReason: consumptionRequestReason,
                notificationUUID: notificationUuid,
                bundleId: bundleId,
                appAppleId: appAppleId,
                url: deliver ? url : nil,
                deliver: deliver,
                appTransactionId: appTransactionId
            )
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(result), as: UTF8.self))
        if deliver && !(200..<300).contains(result.httpStatus ?? 0) { throw ExitCode(1) }
    }
}
