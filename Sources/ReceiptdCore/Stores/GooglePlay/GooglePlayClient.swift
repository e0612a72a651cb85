import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The Android Publisher API v3 calls receiptd makes, each with the shared access token, which is renewed once
/// when the API refuses it.
final class GooglePlayClient: Sendable {
    /// One answer.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        /// The `error.message` of Google's error JSON, if any.
        var errorMessage: String? {
            let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            return ((fields?["error"] as? [String: Any])?["message"] as? String).map { String($0.prefix(200)) }
        }

        /// The body read as `type`, or `nil` when it is not that.
        func decoded<Body: Decodable>(_ type: Body.Type) -> Body? {
            try? JSONDecoder().decode(type, from: body)
        }
    }

    let packageName: String
    let apiURL: String
    let client: HTTPClient
    let tokens: GoogleAccessTokens
    let timeout: Duration

    init(account: GoogleServiceAccount, packageName: String, apiURL: String, client: HTTPClient, timeout: Duration) {
        self.packageName = packageName
        self.apiURL = apiURL
        self.client = client
        self.timeout = timeout
        tokens = GoogleAccessTokens(account: account, client: client, timeout: timeout)
    }

    /// `purchases.productsv2.getproductpurchasev2`; a 200's body reads as a `GoogleProductPurchase`.
    func purchase(token: String) async throws -> Answer {
        try await send(
            .GET,
            "/androidpublisher/v3/applications/\(Self.segment(packageName))/purchases/productsv2/tokens/\(Self.segment(token))"
        )
    }

    /// `orders.get` (the Orders API); a 200's body reads as a `GoogleOrder`.
    func order(id: String) async throws -> Answer {
        try await send(
            .GET,
            "/androidpublisher/v3/applications/\(Self.segment(packageName))/orders/\(Self.segment(id))"
        )
    }

    /// `orders.reviewrefund`: the developer's view of a chargeback; an empty 200 when taken.
    func reviewRefund(orderID: String, body: String) async throws -> Answer {
        try await send(
            .POST,
            "/androidpublisher/v3/applications/\(Self.segment(packageName))/orders/\(Self.segment(orderID)):reviewrefund",
            body: body
        )
    }

    /// `purchases.products.acknowledge` or `.consume`, or `purchases.subscriptions.acknowledge`.
    func finalize(_ action: GoogleFinalizeAction, productID: String, token: String) async throws -> Answer {
        let path =
            switch action {
            case .acknowledgeSubscription:
                "/androidpublisher/v3/applications/\(Self.segment(packageName))/purchases/subscriptions/"
                    + "\(Self.segment(productID))/tokens/\(Self.segment(token)):acknowledge"
            case .acknowledge, .consume, .none: productPath(productID, token) + ":" + action.rawValue
            }
        return try await send(.POST, path, body: "{}")
    }

    /// `purchases.subscriptionsv2.get`; a 200's body reads as a `GoogleSubscriptionPurchase`.
    func subscription(token: String) async throws -> Answer {
        try await send(
            .GET,
            "/androidpublisher/v3/applications/\(Self.segment(packageName))/purchases/subscriptionsv2/tokens/\(Self.segment(token))"
        )
    }

    /// `purchases.voidedpurchases.list` from `startTime` to `endTime` (milliseconds), one page, subscriptions'
    /// refunded periods (`type=1`) and quantity-based partial refunds (each with its `voidedQuantity`) included; a
    /// 200's body reads as a `GoogleVoidedPurchasesPage`.
    func voided(startTime: Int64, endTime: Int64, pageToken: String?) async throws -> Answer {
        var path =
            "/androidpublisher/v3/applications/\(Self.segment(packageName))/purchases/voidedpurchases"
            + "?startTime=\(startTime)&endTime=\(endTime)&maxResults=1000&type=1"
            + "&includeQuantityBasedPartialRefund=true"
        if let pageToken { path += "&token=" + Self.segment(pageToken) }
        return try await send(.GET, path)
    }

    private func productPath(_ productID: String, _ token: String) -> String {
        "/androidpublisher/v3/applications/\(Self.segment(packageName))/purchases/products/\(Self.segment(productID))/tokens/\(Self.segment(token))"
    }

    /// One call; a 401 renews the access token and tries once more.
    private func send(_ method: HTTPMethod, _ path: String, body: String? = nil) async throws -> Answer {
        var token = try await tokens.token()
        for renewed in [false, true] {
            var request = HTTPClientRequest(url: apiURL + path)
            request.method = method
            request.headers.add(name: "Authorization", value: "Bearer " + token)
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: body))
            }
            let response = try await client.execute(request, timeout: .init(timeout))
            let data = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            let answer = Answer(status: Int(response.status.code), headers: response.headers, body: data)
            guard answer.status == 401, !renewed else { return answer }
            token = try await tokens.token(replacing: token)
        }
        preconditionFailure("unreachable: the second pass returns")
    }

    /// `text` safe as one path segment or query value.
    private static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? ""
    }
}
