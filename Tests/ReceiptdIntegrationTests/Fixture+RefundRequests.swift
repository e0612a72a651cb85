import Foundation
import ReceiptdCore
import Testing

extension Fixture {
    /// A `waiting` refund request of `store` about `transactionID` (Google: the order id), as processing records
    /// one: its notification's row, then the request, received `receivedAgo` seconds ago and due `dueIn` after the
    /// notification's signature (Apple's 12 hours, Google's 24 by default). Returns its request id: Apple's
    /// notification UUID, Google's `prt-` and the order id.
    @discardableResult
    func askRefund(
        _ transactionID: String,
        store: Store = .apple,
        user: String?,
        receivedAgo: Double = 0,
        dueIn: Duration? = nil
    ) async throws -> String {
        let (type, result, reason) =
            store == .apple
            ? ("CONSUMPTION_REQUEST", "consumption_requested", "UNINTENDED_PURCHASE")
            : ("PENDING_REFUND_REVIEW", "refund_review_requested", "7")
        let due = dueIn ?? .seconds(store == .apple ? 12 * 3600 : 24 * 3600)
        return try #require(
            try await value(
                """
                WITH n AS (
                    INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                        environment, signed_at, source, payload, processed_at, result)
                    VALUES ($1, gen_random_uuid()::text, $2, $3, 'Production', now(), 'push', '{}', now(), $4)
                    RETURNING id, notification_id, signed_at
                )
                INSERT INTO iap.refund_requests (notification_id, request_id, store, transaction_id, environment,
                    user_id, reason, signed_at, received_at, answer_by)
                SELECT id, CASE WHEN $1 = 'apple' THEN notification_id ELSE 'prt-' || $3 END, $1, $3::text,
                       'Production', $5::text, $6, signed_at, now() - make_interval(secs => $7::float8),
                       signed_at + make_interval(secs => $8::float8)
                FROM n
                RETURNING request_id
                """,
                [store.rawValue, type, transactionID, result, user, reason, receivedAgo, due.seconds]
            )
        )
    }
}
