import Foundation

extension GooglePlayStandIn {
    /// How far back `voidedpurchases.list` looks without a `startTime`, and the furthest back it may be asked to, as
    /// Google's: 30 days.
    private static let defaultVoidedWindowMilliseconds: Int64 = 30 * 24 * 3600 * 1000

    /// `purchases.voidedpurchases.list`: those voided from `startTime` (and up to `endTime`), oldest first,
    /// `maxResults` (at most ``Configuration/voidedPageSize``) a page; `token` asks the next page. A `startTime`
    /// more than 30 days back is answered 400, as Google does. Quantity-based partial refunds are listed only with
    /// `includeQuantityBasedPartialRefund=true`, subscriptions' refunded periods only with `type=1` (Google's default,
    /// `type=0`, lists one-time products alone).
    func voidedPurchases(package: String, query: [String: String], authorization: String?) -> GooglePlayAnswer {
        let answer: GooglePlayAnswer =
            if ledger.bearerFailure(authorization) != nil {
                .unauthenticated
            } else if package != configuration.packageName {
                .permissionDenied
            } else if let status = ledger.takeVoidedFailure() {
                .scripted(status)
            } else {
                voidedPage(query)
            }
        ledger.record(
            RecordedGoogleVoidedQuery(
                startTime: query["startTime"].flatMap { Int64($0) },
                token: query["token"],
                type: query["type"],
                httpStatus: answer.status,
                receivedAt: Date()
            )
        )
        return answer
    }

    private func voidedPage(_ query: [String: String]) -> GooglePlayAnswer {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        guard let start = query["startTime"].map({ Int64($0) }) ?? now - Self.defaultVoidedWindowMilliseconds,
            start >= now - Self.defaultVoidedWindowMilliseconds,
            let end = query["endTime"].map({ Int64($0) }) ?? now, start <= end,
            let maxResults = query["maxResults"].map({ Int($0) }) ?? 1000, maxResults > 0,
            let type = query["type"].map({ Int($0) }) ?? 0, type == 0 || type == 1
        else { return .invalidValue }
        var entries = ledger.voided(in: start...end)
        if query["includeQuantityBasedPartialRefund"] != "true" { entries.removeAll { $0.quantity != nil } }
        if type == 0 { entries.removeAll { subscriptionBook.subscription($0.token) != nil } }
        if let token = query["token"] {
            // The page token names the last entry sent, so voids added meanwhile neither repeat nor skip entries.
            guard let last = Self.position(pageToken: token) else { return .invalidValue }
            entries.removeAll { ($0.voidedMilliseconds, $0.sequence) <= last }
        }
        let page = entries.prefix(min(maxResults, max(1, configuration.voidedPageSize)))
        return .json(
            200,
            GoogleVoidedPurchasePage(
                tokenPagination: page.count < entries.count
                    ? page.last.map { .init(nextPageToken: Self.pageToken(after: $0)) } : nil,
                voidedPurchases: page.isEmpty
                    ? nil
                    : page.map {
                        .init(
                            purchaseToken: $0.token,
                            purchaseTimeMillis: String($0.purchaseMilliseconds),
                            voidedTimeMillis: String($0.voidedMilliseconds),
                            orderId: $0.orderID,
                            voidedReason: $0.reason,
                            voidedQuantity: $0.quantity
                        )
                    }
            )
        )
    }

    private static func pageToken(after entry: GooglePlayLedger.Voided) -> String {
        "after-\(entry.voidedMilliseconds)-\(entry.sequence)"
    }

    private static func position(pageToken: String) -> (Int64, Int)? {
        let parts = pageToken.split(separator: "-")
        guard parts.count == 3, parts[0] == "after", let milliseconds = Int64(parts[1]), let sequence = Int(parts[2])
        else {
            return nil
        }
        return (milliseconds, sequence)
    }

    /// `POST /fake/void` `{"token":…,"order_id":…,"reason":1,"voided_time_ms":…,"quantity":…}`:
    /// ``void(token:orderID:reason:at:quantity:)`` for other processes; only `token` is required. Answers 204.
    func fakeVoid(body: String) -> GooglePlayAnswer {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any],
            let token = fields["token"] as? String
        else { return GooglePlayAnswer(status: 400, body: "{\"error\":\"a JSON object with a token is required\"}") }
        let date = (fields["voided_time_ms"] as? Int).map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? Date()
        void(
            token: token,
            orderID: fields["order_id"] as? String,
            reason: fields["reason"] as? Int ?? 1,
            at: date,
            quantity: fields["quantity"] as? Int
        )
        return GooglePlayAnswer(status: 204)
    }
}
