import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Transaction ids looked up with the App Store Server API: the sandbox fallback, not found, credentials refused,
/// Retry-After and the request rate shared by every daemon.
@Suite struct ServerAPILookupTests {
    /// The app account token the orders below are enqueued with and their purchases carry: without it a looked-up
    /// transaction pays nothing (`RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN=reject`).
    private static let token = UUID()

    private static func payload(
        _ id: String,
        environment: String = "Production",
        token: UUID? = Self.token
    ) -> SignedTransactionPayload {
        SignedTransactionPayload(
            transactionId: id,
            productId: "gems",
            environment: environment,
            appAccountToken: token?.uuidString.lowercased()
        )
    }

    /// `iap.enqueue_transaction` of a transaction id with ``token`` (or another, or none).
    private func enqueue(
        _ f: Fixture,
        _ order: String,
        user: String = "u1",
        id: String,
        token: UUID? = Self.token
    ) async throws {
        try await f.enqueue(order, user: user, transaction: id, appAccountToken: token)
    }

    @Test func anIdIsLookedUpInProductionThenTheSandbox() async throws {
        try await Fixture.with { f in
            f.standIn.register(Self.payload("8001"))
            f.standIn.register(Self.payload("8002", environment: "Sandbox"))
            try await enqueue(f, "prod", id: "8001")
            try await enqueue(f, "sandbox", user: "u2", id: "8002")
            try await enqueue(f, "nowhere", user: "u3", id: "8003")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("prod")["outcome"] == "full")
            let sandbox = try await f.order("sandbox")
            #expect(sandbox["outcome"] == "full" && sandbox["environment"] == "Sandbox")
            let nowhere = try await f.order("nowhere")
            #expect(
                nowhere["outcome"] == "invalid"
                    && nowhere["last_error"]?.contains("not found in production or sandbox") == true
            )
            let requests = f.standIn.recordedServerAPIRequests()
            #expect(requests.allSatisfy { $0.bearerFailure == nil })
            #expect(requests.filter { $0.transactionID == "8002" }.map(\.environment) == [.production, .sandbox])
            #expect(requests.filter { $0.transactionID == "8001" }.map(\.environment) == [.production])
            #expect(
                try await f.value("SELECT environment FROM iap.deliveries WHERE transaction_id = '8002'") == "Sandbox"
            )
        }
    }

    @Test func refusedCredentialsAreRetriedAndCounted() async throws {
        let wrongKey = ServerAPITestKey.generate()
        try await Fixture.with(standIn: { $0.serverAPIKey = wrongKey.publicKey }) { f in
            f.standIn.register(Self.payload("8101"))
            try await enqueue(f, "locked-out", id: "8101")
            try await f.withDaemons(settings: f.settings { $0.daemon.maxAttempts = 2 }) { _ in
                try await f.waitUntilSettled()
            }
            let order = try await f.order("locked-out")
            #expect(order["state"] == "failed" && order["attempts"] == "2")
            #expect(order["last_error"]?.contains("HTTP 401") == true)
            #expect(try await f.value("SELECT count(*) FROM iap.attempts WHERE error_class = 'credentials'") == "2")
            #expect(
                f.standIn.recordedServerAPIRequests().allSatisfy { $0.httpStatus == 401 && $0.bearerFailure != nil }
            )
        }
    }

    @Test func transientErrorsAreRetried() async throws {
        try await Fixture.with { f in
            // The last is a 404 without Apple's JSON (a wrong URL, a proxy): it says nothing about the transaction.
            let steps = [
                ScriptStep(http: 500), ScriptStep(errorCode: 5_000_001), ScriptStep(errorCode: 4_040_002),
                ScriptStep(http: 404),
            ]
            f.standIn.register(Self.payload("8201"), script: steps)
            try await enqueue(f, "flaky", id: "8201")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let order = try await f.order("flaky")
            #expect(order["outcome"] == "full" && order["attempts"] == "5")
        }
    }

    @Test func anAppleErrorCodeOtherThanTheTransientOnesIsInvalid() async throws {
        try await Fixture.with { f in
            f.standIn.register(Self.payload("8501"), script: [ScriptStep(http: 400, errorCode: 4_000_006)])
            try await enqueue(f, "bad-id", id: "8501")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let order = try await f.order("bad-id")
            #expect(order["outcome"] == "invalid" && order["last_error"]?.contains("errorCode 4000006") == true)
        }
    }

    @Test func retryAfterHoldsEveryDaemon() async throws {
        try await Fixture.with { f in
            let until = Int64((Date().timeIntervalSince1970 + 1.5) * 1000)
            f.standIn.register(
                Self.payload("8301"),
                script: [ScriptStep(retryAfter: String(until), errorCode: 4_290_000)]
            )
            try await enqueue(f, "limited", id: "8301")
            try await f.withDaemons(count: 2) { _ in
                // Once the daemon has written the API's Retry-After for every daemon to see.
                try await f.waitUntil {
                    try await f.value(
                        "SELECT blocked_until > now() FROM iap.api_pacing WHERE api = 'apple_transaction_info'"
                    ) == "t"
                }
                for index in 0..<10 {
                    f.standIn.register(Self.payload("831\(index)"))
                    try await enqueue(f, "after-\(index)", user: "v\(index)", id: "831\(index)")
                }
                try await f.waitUntilSettled()
            }
            let limitedAt = try #require(f.standIn.recordedServerAPIRequests().first { $0.httpStatus == 429 })
                .receivedAt
            let later = f.standIn.recordedServerAPIRequests().filter { $0.receivedAt > limitedAt }
            #expect(later.count == 11)
            #expect(later.allSatisfy { $0.receivedAt.timeIntervalSince1970 * 1000 >= Double(until) - 5 })
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome = 'full'") == "11")
        }
    }

    @Test func twoDaemonsShareTheRequestRate() async throws {
        try await Fixture.with(standIn: { $0.serverAPIRateLimit = 6 }) { f in
            for index in 0..<20 {
                f.standIn.register(Self.payload("84\(index + 10)"))
                try await enqueue(f, "paced-\(index)", user: "p\(index)", id: "84\(index + 10)")
            }
            let started = Date()
            // Two jobs in flight per daemon: neither can take all twenty, both must share the budget.
            let settings = f.settings {
                $0.storeKit.serverAPIRate = 5
                $0.daemon.concurrency = 2
            }
            try await f.withDaemons(count: 2, settings: settings) { _ in
                try await f.waitUntilSettled()
            }
            let requests = f.standIn.recordedServerAPIRequests()
            #expect(requests.count == 20 && requests.allSatisfy { $0.httpStatus == 200 })
            // Twenty requests at five a second take almost four seconds, wherever they were made.
            #expect(Date().timeIntervalSince(started) > 3.5)
            let times = requests.map(\.receivedAt).sorted()
            for (index, time) in times.enumerated() {
                #expect(times[index...].prefix { $0.timeIntervalSince(time) < 1 }.count <= 6)
            }
            #expect(try await f.value("SELECT count(DISTINCT daemon) FROM iap.attempts") == "2")
        }
    }

    /// Issue 17, item 1: a transaction id names a purchase but not who made it. Without the order's app account
    /// token it pays nothing: the order is `unmatched`, `last_error` says why, and the purchase waits as an
    /// unclaimed payment an operator can assign. A purchase carrying another player's order's token (issue #47) is
    /// that player's: the presenter loses trust and it waits for its owner's own presentation.
    @Test func aLookedUpTransactionPaysOnlyAnOrderWhoseTokenItCarries() async throws {
        try await Fixture.with { f in
            let victim = UUID()
            let attacker = UUID()
            f.standIn.register(Self.payload("8701", token: victim))
            f.standIn.register(Self.payload("8702", token: nil))
            f.standIn.register(Self.payload("8703", token: victim))
            // Another player's purchase, guessed by id, under the attacker's own token; an id and an order without any.
            try await enqueue(f, "stolen", user: "mallory", id: "8701", token: attacker)
            try await enqueue(f, "tokenless", user: "trent", id: "8702", token: nil)
            try await enqueue(f, "own", user: "victor", id: "8703", token: victim)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }

            let stolen = try await f.order("stolen")
            #expect(stolen["outcome"] == "unmatched" && stolen["delivered_quantity"] == "0")
            #expect(
                stolen["last_error"]?.contains(
                    "never delivered whose app account token is another user's order's: 8701 (user victor)"
                ) == true
            )
            #expect(
                try await f.value("SELECT reason FROM iap.user_trust WHERE user_id = 'mallory' AND NOT trusted")
                    == "foreign_transaction"
            )
            let tokenless = try await f.order("tokenless")
            #expect(tokenless["outcome"] == "unmatched")
            #expect(
                tokenless["last_error"]?.contains(
                    "transaction 8702 was looked up by its id and carries no appAccountToken, and the order has no app_account_token"
                ) == true
            )
            #expect(try await f.order("own")["outcome"] == "full")
            let ledger =
                "SELECT string_agg(transaction_id || '→' || order_id, ',' ORDER BY transaction_id) FROM iap.deliveries"
            #expect(try await f.value(ledger) == "8703→own")
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(transaction_id || ':' || user_id || ':' || order_id, ',' ORDER BY transaction_id)
                    FROM iap.unclaimed_payments WHERE assigned_at IS NULL
                    """
                ) == "8702:trent:tokenless"
            )

            // The victim's own order, with its token, still gets the purchase; the operator assigns the other one.
            try await enqueue(f, "victims", user: "victor", id: "8701", token: victim)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("victims")["outcome"] == "full")
            try await f.connection.execute("SELECT iap.assign_payment('8702', 'tokenless')")
            #expect(try await f.value(ledger) == "8701→victims,8702→tokenless,8703→own")
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments WHERE assigned_at IS NULL") == "0")
        }
    }

    /// `RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN=accept`: the game takes the risk, and an id pays as before: an order
    /// without a token takes any purchase of its product, one with a token only a purchase carrying it.
    @Test func acceptingIdsWithoutTokenKeepsTheOldRules() async throws {
        try await Fixture.with { f in
            f.standIn.register(Self.payload("8801", token: nil))
            f.standIn.register(Self.payload("8802", token: UUID()))
            try await enqueue(f, "tokenless", id: "8801", token: nil)
            try await enqueue(f, "other-token", user: "u2", id: "8802")
            try await f.withDaemons(settings: f.settings { $0.storeKit.transactionIDWithoutToken = .accept }) { _ in
                try await f.waitUntilSettled()
            }
            #expect(try await f.order("tokenless")["outcome"] == "full")
            let other = try await f.order("other-token")
            #expect(other["outcome"] == "unmatched" && other["last_error"] == nil)
        }
    }

    /// Issue 17, item 16: the environment that answered must be the one the signed transaction names, as for a
    /// history; production answering with a sandbox transaction pays nothing.
    @Test func anAnswerAboutAnotherEnvironmentsTransactionIsInvalid() async throws {
        try await Fixture.with { f in
            let sandboxSigned = f.standIn.testChain.signedTransaction(Self.payload("8901", environment: "Sandbox"))
            f.standIn.register(
                Self.payload("8901"),
                script: [ScriptStep(raw: "{\"signedTransactionInfo\":\"\(sandboxSigned)\"}")]
            )
            try await enqueue(f, "crossed", id: "8901")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let order = try await f.order("crossed")
            #expect(
                order["outcome"] == "invalid" && order["last_error"] == "Production answer holds a Sandbox transaction"
            )
            #expect(f.standIn.recordedServerAPIRequests().map(\.environment) == [.production])
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
        }
    }
}
