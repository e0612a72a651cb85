import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

extension Fixture {
    /// Records an Apple notification of `type` about `transaction` as the intake records a verified one (the agreed
    /// payload: the decoded notification with the nested JWS, and the decoded transaction); returns its row id.
    @discardableResult
    func recordNotification(
        _ type: String,
        subtype: String? = nil,
        transaction: SignedTransactionPayload?,
        signedDate: Int64 = SignedTransactionPayload.nowMilliseconds(),
        hasData: Bool = true
    ) async throws -> Int64 {
        let jws = transaction.map { standIn.testChain.signedTransaction($0) }
        let notification = AppleNotificationPayload(
            notificationType: type,
            subtype: subtype,
            signedDate: signedDate,
            signedTransactionInfo: jws,
            hasData: hasData
        )
        var payload = #"{"notification": "# + String(decoding: notification.encodedJSON(), as: UTF8.self)
        if let transaction {
            payload += #", "transaction": "# + String(decoding: try JSONEncoder().encode(transaction), as: UTF8.self)
        }
        payload += "}"
        return try await record(
            StoreNotification(
                store: .apple,
                notificationID: notification.notificationUUID,
                type: type,
                subtype: subtype,
                transactionID: transaction?.transactionId,
                originalTransactionID: transaction?.originalTransactionId,
                environment: .production,
                signedAt: Date(timeIntervalSince1970: Double(signedDate) / 1000),
                source: .push,
                payload: payload
            )
        )
    }

    /// Records `notification` through the intake's own statement; returns its row id.
    @discardableResult
    func record(_ notification: StoreNotification) async throws -> Int64 {
        let pool = DatabasePool(connectionString: database.connectionString, maximumConnections: 1)
        let queue = PostgresJobQueue(
            pool: pool,
            owner: "test:1:intake",
            planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: SyntheticReceipt.defaultBundleID)
        )
        let recorded = try await queue.record(notification)
        await pool.close()
        precondition(recorded, "notification \(notification.notificationID) was recorded before")
        return try #require(
            try await value(
                "SELECT id FROM iap.store_notifications WHERE store = $1 AND notification_id = $2",
                [notification.store.rawValue, notification.notificationID]
            ).flatMap(Int64.init)
        )
    }

    /// The result and error the processing gave notification `id`, once it is processed.
    func processedResult(_ id: Int64, timeout: Duration = .seconds(30)) async throws -> [String?] {
        try await waitUntil(timeout: timeout) {
            try await value("SELECT processed_at IS NOT NULL FROM iap.store_notifications WHERE id = $1", [id]) == "t"
        }
        let row = try await row("SELECT result, error FROM iap.store_notifications WHERE id = $1", [id])
        return [row["result"], row["error"]]
    }

    /// Expects notification `id` to be processed with `result` and `error`.
    func expectProcessed(
        _ id: Int64,
        _ result: String,
        error: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let processed = try await processedResult(id)
        #expect(processed == [result, error], sourceLocation: sourceLocation)
    }
}
