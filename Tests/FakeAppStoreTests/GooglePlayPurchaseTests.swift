import FakeAppStore
import Foundation
import Testing

/// `purchases.products.get` for synthetic tokens: what the token says, pending first when asked, scripted errors,
/// and Google's errors for unknown tokens, other products and other packages.
@Suite struct GooglePlayPurchaseTests {
    /// Looks `token` up once with a fresh access token.
    private static func lookUp(
        _ client: GooglePlayTestClient,
        _ token: SyntheticPurchaseToken,
        product: String = "gems",
        package: String = "com.example.game"
    ) async throws -> GooglePlayTestClient.Answer {
        try await client.send(
            "GET",
            client.productURL(token.encoded(), product: product, package: package),
            bearer: try await client.accessToken()
        )
    }

    @Test func aPurchaseIsAnsweredAsTheTokenSays() async throws {
        try await GooglePlayTestClient.with { client in
            let token = SyntheticPurchaseToken(
                productID: "gems",
                orderID: "GPA.3345-0000-0000-00001",
                quantity: 3,
                accountID: "acct-1",
                purchaseTimeMilliseconds: 1_700_000_000_123
            )
            let answer = try await Self.lookUp(client, token)
            #expect(answer.status == 200)
            let json = answer.json
            #expect(json["kind"] as? String == "androidpublisher#productPurchase" && json["purchaseState"] as? Int == 0)
            #expect(json["orderId"] as? String == "GPA.3345-0000-0000-00001" && json["productId"] as? String == "gems")
            #expect(json["purchaseTimeMillis"] as? String == "1700000000123")
            #expect(json["quantity"] as? Int == 3 && json["obfuscatedExternalAccountId"] as? String == "acct-1")
            #expect(json["acknowledgementState"] as? Int == 0 && json["consumptionState"] as? Int == 0)
            #expect(json["regionCode"] as? String == "US" && json["purchaseType"] == nil)
            #expect(client.standIn.recordedPurchaseQueries().map(\.productID) == ["gems"])
        }
    }

    @Test func optionalFieldsAreLeftOut() async throws {
        try await GooglePlayTestClient.with { client in
            let json = try await Self.lookUp(
                client,
                SyntheticPurchaseToken(productID: "gems", acknowledged: true, testPurchase: true)
            ).json
            #expect(json["orderId"] == nil && json["quantity"] == nil && json["obfuscatedExternalAccountId"] == nil)
            #expect(json["purchaseType"] as? Int == 0 && json["acknowledgementState"] as? Int == 1)
        }
    }

    @Test func pendingThenPurchasedAndCancelled() async throws {
        try await GooglePlayTestClient.with { client in
            let pending = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.2", pendingCalls: 2)
            var states: [Int?] = []
            for _ in 0..<3 { states.append(try await Self.lookUp(client, pending).json["purchaseState"] as? Int) }
            #expect(states == [2, 2, 0])
            let cancelled = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.3", state: 1)
            #expect(try await Self.lookUp(client, cancelled).json["purchaseState"] as? Int == 1)
        }
    }

    @Test func aScriptAnswersGooglesErrorsThenThePurchase() async throws {
        try await GooglePlayTestClient.with { client in
            let token = SyntheticPurchaseToken(
                productID: "gems",
                orderID: "GPA.4",
                script: [
                    ScriptStep(http: 429, retryAfter: "7"), ScriptStep(http: 503), ScriptStep(delayMilliseconds: 30),
                    ScriptStep(http: 400),
                ]
            )
            let limited = try await Self.lookUp(client, token)
            #expect(limited.status == 429 && limited.retryAfter == "7" && limited.errorStatus == "RESOURCE_EXHAUSTED")
            #expect((limited.json["error"] as? [String: Any])?["code"] as? Int == 429)
            let unavailable = try await Self.lookUp(client, token)
            #expect(unavailable.status == 503 && unavailable.retryAfter == nil)
            let started = ContinuousClock.now
            #expect(try await Self.lookUp(client, token).status == 200)
            #expect(ContinuousClock.now - started >= .milliseconds(30))
            let invalid = try await Self.lookUp(client, token)
            #expect(
                invalid.status == 400
                    && (invalid.json["error"] as? [String: Any])?["message"] as? String == "Invalid Value"
            )
            #expect(try await Self.lookUp(client, token).status == 200)
            #expect(client.standIn.recordedPurchaseQueries().map(\.httpStatus) == [429, 503, 200, 400, 200])
        }
    }

    @Test func unknownTokensOtherProductsAndOtherPackagesAreRefused() async throws {
        try await GooglePlayTestClient.with { client in
            let bearer = try await client.accessToken()
            let unknown = try await client.send(
                "GET",
                client.productURL("opaque-token-from-a-real-device"),
                bearer: bearer
            )
            #expect(unknown.status == 404 && unknown.errorStatus == "NOT_FOUND")
            #expect(
                (unknown.json["error"] as? [String: Any])?["message"] as? String == "The purchase token was not found."
            )
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.5")
            let otherProduct = try await Self.lookUp(client, token, product: "coins")
            #expect(otherProduct.status == 400 && otherProduct.errorStatus == "INVALID_ARGUMENT")
            let otherPackage = try await Self.lookUp(client, token, package: "com.other.app")
            #expect(otherPackage.status == 403 && otherPackage.errorStatus == "PERMISSION_DENIED")
            // A token naming no product is good for any.
            #expect(
                try await Self.lookUp(client, SyntheticPurchaseToken(orderID: "GPA.6"), product: "coins").status == 200
            )
        }
    }

    @Test func tokensAreURLSafeAndReadLeniently() throws {
        let token = SyntheticPurchaseToken(
            productID: "gems/€ ü?",
            orderID: "GPA.7",
            accountID: "a+b",
            script: [.httpStatus(503)]
        )
        let encoded = token.encoded()
        #expect(encoded.hasPrefix("synthetic."))
        #expect(encoded.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        #expect(SyntheticPurchaseToken(token: encoded) == token)
        #expect(SyntheticPurchaseToken(token: "not-synthetic") == nil)
        // Another process may write the JSON by hand, with only what it cares about.
        let handMade =
            "synthetic."
            + Data(#"{"order_id":"GPA.8"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "")
        let read = try #require(SyntheticPurchaseToken(token: handMade))
        #expect(
            read.orderID == "GPA.8" && read.state == 0 && read.productID == nil && read.purchaseTimeMilliseconds == nil
        )
        #expect(SyntheticPurchaseToken(productID: "gems") != SyntheticPurchaseToken(productID: "gems"))
    }
}
