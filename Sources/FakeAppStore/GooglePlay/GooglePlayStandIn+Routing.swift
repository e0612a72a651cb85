import Foundation
import NIOHTTP1

extension GooglePlayStandIn {
    /// Where the Android Publisher API's application paths start.
    private static let applicationsPrefix = "/androidpublisher/v3/applications/"

    /// Records one call and decides its answer.
    func answer(method: HTTPMethod, uri: String, authorization: String?, body: String) -> GooglePlayAnswer {
        let split = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(split[0])
        let query = split.count > 1 ? Self.form(split[1]) : [:]
        switch (method, path) {
        case (.GET, "/healthz"):
            return GooglePlayAnswer(status: 200, body: "ok", contentType: "text/plain")
        case (.GET, "/oauth2/v3/certs"):
            return jwks()
        case (.POST, "/fake/void"):
            return fakeVoid(body: body)
        case (.POST, "/token"):
            return delayed(grant(Self.form(Substring(body))))
        default:
            return delayed(api(method: method, path: path, query: query, authorization: authorization, body: body))
        }
    }

    /// The Android Publisher API calls.
    private func api(
        method: HTTPMethod,
        path: String,
        query: [String: String],
        authorization: String?,
        body: String
    ) -> GooglePlayAnswer {
        guard path.hasPrefix(Self.applicationsPrefix) else { return .noSuchPath }
        guard quota.admit() else { return .scripted(429) }
        let segments = path.dropFirst(Self.applicationsPrefix.count).split(
            separator: "/",
            omittingEmptySubsequences: false
        )
        .map { $0.removingPercentEncoding ?? String($0) }
        if method == .GET, segments.count == 3, segments[1] == "purchases", segments[2] == "voidedpurchases" {
            return voidedPurchases(package: segments[0], query: query, authorization: authorization)
        }
        if method == .GET, segments.count == 5, segments[1] == "purchases", segments[2] == "productsv2",
            segments[3] == "tokens"
        {
            return purchase(package: segments[0], productID: nil, token: segments[4], authorization: authorization)
        }
        if method == .GET, segments.count == 5, segments[1] == "purchases", segments[2] == "subscriptionsv2",
            segments[3] == "tokens"
        {
            return subscription(package: segments[0], token: segments[4], authorization: authorization)
        }
        if method == .POST, segments.count == 6, segments[1] == "purchases", segments[2] == "subscriptions",
            segments[4] == "tokens", segments[5].hasSuffix(":acknowledge")
        {
            return acknowledgeSubscription(
                package: segments[0],
                productID: segments[3],
                token: String(segments[5].dropLast(":acknowledge".count)),
                authorization: authorization,
                body: body
            )
        }
        if method == .POST, segments.count == 3, segments[1] == "orders", segments[2].hasSuffix(":reviewrefund") {
            let orderID = String(segments[2].dropLast(":reviewrefund".count))
            return reviewRefund(package: segments[0], orderID: orderID, authorization: authorization, body: body)
        }
        if method == .GET, segments.count == 3, segments[1] == "orders" {
            return order(package: segments[0], orderID: segments[2], authorization: authorization)
        }
        guard segments.count == 6, segments[1] == "purchases", segments[2] == "products", segments[4] == "tokens" else {
            return .noSuchPath
        }
        let (package, productID, last) = (segments[0], segments[3], segments[5])
        switch method {
        case .GET:
            return purchase(package: package, productID: productID, token: last, authorization: authorization)
        case .POST:
            // `{token}:acknowledge` and `{token}:consume`; tokens themselves never hold a colon.
            guard let colon = last.lastIndex(of: ":"),
                let action = RecordedGoogleFinalization.Action(rawValue: String(last[last.index(after: colon)...]))
            else { return .noSuchPath }
            return finalize(
                action,
                package: package,
                productID: productID,
                token: String(last[..<colon]),
                authorization: authorization,
                body: body
            )
        default:
            return .noSuchPath
        }
    }

    /// Adds the configured latency.
    private func delayed(_ answer: GooglePlayAnswer) -> GooglePlayAnswer {
        var answer = answer
        answer.delayMilliseconds += max(0, configuration.latency)
        return answer
    }

    /// `a=1&b=2` as a form or a query string: `+` is a space, then percent-decoding.
    static func form(_ text: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                let spaced = $0.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}
