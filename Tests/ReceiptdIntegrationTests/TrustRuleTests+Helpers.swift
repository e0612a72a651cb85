import Foundation
import ReceiptdCore
import Testing

/// The writes the daemons and the game make, as the roles that make them, for the trust rules' tests.
extension TrustRuleTests {
    /// The error classes the daemon passes to `iap.grant_provisional` (`ErrorClass.isStoreOutage`).
    static let outages = "{" + ErrorClass.allCases.filter(\.isStoreOutage).map(\.rawValue).joined(separator: ",") + "}"

    /// Runs `body` with a connection as the game (`receiptd_app`), as the daemon (`receiptd_worker`) and as an
    /// operator (`receiptd_operator`), each a new login role of this test's database.
    static func withRoles(_ f: Fixture, _ body: (Roles) async throws -> Void) async throws {
        let roles = Roles(
            game: try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_app")),
            worker: try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_worker")),
            operations: try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_operator"))
        )
        do {
            try await body(roles)
        } catch {
            for connection in [roles.game, roles.worker, roles.operations] { await connection.close() }
            throw error
        }
        for connection in [roles.game, roles.worker, roles.operations] { await connection.close() }
    }

    /// An order of `user` whose job, enqueued as `input` (`receipt`, `transaction` (an id), `jws` (a signed
    /// transaction) or `google`), has failed with `error` since its input arrived `secondsAgo` back. Returns the
    /// job's id.
    @discardableResult
    static func failingOrder(
        _ f: Fixture,
        _ order: String,
        user: String = "u1",
        input: String = "receipt",
        quantity: Int = 1,
        error: String? = "transport: connection reset by peer",
        secondsAgo: Int = 60
    ) async throws -> Int64 {
        let number = String(order.utf8.reduce(7) { ($0 &* 31 &+ Int($1)) % 1_000_000_007 })
        let job: Int64
        switch input {
        case "transaction":
            job = try await f.enqueue(order, user: user, transaction: number, quantity: quantity)
        case "jws":
            job = try await f.enqueue(
                order,
                user: user,
                transaction: "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoi\(number)In0.c2lnbmF0dXJl",
                quantity: quantity
            )
        case "google":
            let id = try await f.value(
                "SELECT iap.enqueue_google_purchase($1, $2, 'gems', $3, $4)",
                [order, user, "token-\(order)", quantity]
            )
            job = Int64(try #require(id.flatMap { Int($0) }))
        default:
            job = try await f.enqueue(order, user: user, receipt: Receipts.paying(number), quantity: quantity)
        }
        try await f.connection.execute(
            """
            UPDATE iap.jobs SET created_at = now() - make_interval(secs => $2), last_error = $3,
                                attempts = CASE WHEN $3::text IS NULL THEN 0 ELSE 1 END
            WHERE id = $1
            """,
            [job, secondsAgo, error]
        )
        return job
    }

    /// `iap.grant_provisional` as the daemon calls it: the orders granted, as `order_id:cause`, in order.
    static func grant(
        _ worker: PostgresConnection,
        failingFor seconds: Int = 30,
        limit: Int = 2,
        receiptAPI: String = StoreAPI.verifyReceipt.rawValue
    ) async throws -> [String] {
        try await worker.execute(
            """
            SELECT order_id || ':' || cause AS granted
            FROM iap.grant_provisional(make_interval(secs => $1), $2, $3, $4::text[]) ORDER BY order_id
            """,
            [seconds, limit, receiptAPI, outages]
        ).namedRows.map { try $0.string("granted") }
    }

    /// What a settle writes when a transaction pays `order` whole, in one statement as the daemon: the ledger
    /// row, the job succeeded, and the order's outcome (verified, as a delivery leaves it).
    static func settle(
        _ worker: PostgresConnection,
        _ orders: [String],
        store: String = "apple",
        outcome: String = "full"
    ) async throws {
        try await worker.execute(
            """
            WITH ledger AS (
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store,
                                            job_id)
                SELECT 'paid-' || o.order_id, o.order_id, o.user_id, o.product_id, o.quantity, 'Production', $2,
                       (SELECT max(j.id) FROM iap.jobs j WHERE j.order_id = o.order_id)
                FROM iap.orders o WHERE o.order_id = ANY ($1::text[])
                RETURNING order_id, quantity
            ), finished AS (
                UPDATE iap.jobs SET state = 'succeeded', finished_at = now(), locked_by = NULL
                WHERE order_id = ANY ($1::text[]) AND state IN ('pending', 'running')
            )
            UPDATE iap.orders o
            SET delivered_quantity = o.delivered_quantity + l.quantity, outcome = $3::iap.outcome, outcome_at = now(),
                status = 'verified'
            FROM ledger l WHERE o.order_id = l.order_id
            """,
            ["{" + orders.joined(separator: ",") + "}", store, outcome]
        )
    }

    /// What the daemon writes when verification of `orders` ends without paying them (`outcome`), in one statement.
    static func end(_ worker: PostgresConnection, _ orders: [String], _ outcome: String) async throws {
        try await worker.execute(
            """
            WITH finished AS (
                UPDATE iap.jobs SET state = CASE WHEN $2 = 'failed' THEN 'failed' ELSE 'succeeded' END,
                                    finished_at = now(), locked_by = NULL
                WHERE order_id = ANY ($1::text[]) AND state IN ('pending', 'running')
            )
            UPDATE iap.orders SET outcome = $2::iap.outcome, outcome_at = now() WHERE order_id = ANY ($1::text[])
            """,
            ["{" + orders.joined(separator: ",") + "}", outcome]
        )
    }

    /// The player's level in `store` as `iap.trust_of` reports it to an operator: `trusted:streak:reason`.
    static func trust(
        _ operations: PostgresConnection,
        _ user: String,
        _ store: String = "apple"
    ) async throws -> String {
        let row = try #require(
            try await operations.execute(
                "SELECT trusted, streak, coalesce(reason, '-') AS reason FROM iap.trust_of($1) WHERE store = $2",
                [user, store]
            ).first
        )
        return "\(row["trusted"] == "t"):\(try row.string("streak")):\(try row.string("reason"))"
    }

    /// A connection listening on `channel` (one of receiptd's fixed channel names).
    static func listen(_ f: Fixture, _ channel: String) async throws -> PostgresConnection {
        let listener = try await f.database.connect()
        try await listener.execute("LISTEN \(channel)")
        return listener
    }

    /// The JSON payloads that arrived on `channel`, waiting up to two seconds for the first.
    static func payloads(_ listener: PostgresConnection, on channel: String) async throws -> [[String: String]] {
        var notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
        while true {
            let more = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 200) }
            if more.isEmpty { break }
            notes += more
        }
        return try notes.filter { $0.channel == channel }.map { note in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(note.payload.utf8)) as? [String: Any])
            return object.mapValues { value in
                if let flag = value as? Bool { return String(flag) }
                return "\(value)"
            }
        }
    }
}
