import Foundation

extension GooglePlayStandIn {
    /// `purchases.products.get` (`productID` from its path) or productsv2 (`productID` `nil`): bearer, package,
    /// token, the token's script step, product, then the purchase.
    func purchase(package: String, productID: String?, token: String, authorization: String?) -> GooglePlayAnswer {
        let bearerFailure = ledger.bearerFailure(authorization)
        let answer: GooglePlayAnswer =
            if bearerFailure != nil {
                .unauthenticated
            } else if package != configuration.packageName {
                .permissionDenied
            } else if let outage = ledger.lookupOutage {
                .scripted(outage)
            } else if let specification = SyntheticPurchaseToken(token: token) {
                found(specification, token: token, productID: productID)
            } else {
                .tokenNotFound
            }
        ledger.record(
            RecordedGooglePurchaseQuery(
                token: token,
                productID: productID ?? "",
                httpStatus: answer.closeConnection ? 0 : answer.status,
                bearerFailure: bearerFailure,
                receivedAt: Date()
            )
        )
        return answer
    }

    /// The answer for a synthetic token, counting the call.
    private func found(_ specification: SyntheticPurchaseToken, token: String, productID: String?) -> GooglePlayAnswer {
        let seen = ledger.lookUp(token)
        if let orderID = specification.orderID { ledger.remember(order: orderID, of: specification) }
        let step = specification.script.flatMap { seen.lookups < $0.count ? $0[seen.lookups] : nil }
        var answer =
            step.flatMap(Self.scriptedAnswer)
            ?? purchaseAnswer(
                specification,
                seen: seen,
                productID: productID,
                pending: seen.lookups < specification.pendingCalls ?? 0
            )
        answer.delayMilliseconds += max(0, step?.delayMilliseconds ?? 0)
        return answer
    }

    /// A script step's own answer; `nil` when the step only delays.
    private static func scriptedAnswer(_ step: ScriptStep) -> GooglePlayAnswer? {
        if step.reset == true { return GooglePlayAnswer(status: 0, closeConnection: true) }
        if let status = step.http {
            var answer = GooglePlayAnswer.scripted(status)
            if let retryAfter = step.retryAfter { answer.headers.append(("Retry-After", retryAfter)) }
            return answer
        }
        if let raw = step.raw { return GooglePlayAnswer(status: 200, body: raw, contentType: "text/html") }
        return nil
    }

    private func purchaseAnswer(
        _ specification: SyntheticPurchaseToken,
        seen: GooglePlayLedger.Purchase,
        productID: String?,
        pending: Bool
    ) -> GooglePlayAnswer {
        let purchased = specification.purchaseTimeMilliseconds ?? Int64(seen.firstSeen.timeIntervalSince1970 * 1000)
        guard let productID else {
            return .json(
                200,
                GoogleProductPurchaseV2(specification, seen: seen, purchased: purchased, pending: pending)
            )
        }
        if let expected = specification.productID, expected != productID { return .invalidValue }
        return .json(
            200,
            GoogleProductPurchase(
                purchaseTimeMillis: String(purchased),
                purchaseState: pending ? 2 : specification.state,
                consumptionState: seen.consumed ? 1 : 0,
                orderId: specification.orderID,
                purchaseType: specification.testPurchase == true ? 0 : nil,
                acknowledgementState: specification.acknowledged == true || seen.acknowledged ? 1 : 0,
                productId: productID,
                quantity: specification.quantity,
                obfuscatedExternalAccountId: specification.accountID
            )
        )
    }

    /// `purchases.products.acknowledge` and `.consume`: bearer, package, body, then a pending failure, the token,
    /// the product and the purchase's state now. Every call is recorded.
    func finalize(
        _ action: RecordedGoogleFinalization.Action,
        package: String,
        productID: String,
        token: String,
        authorization: String?,
        body: String
    ) -> GooglePlayAnswer {
        if let refusal = finalizationRefusal(
            action,
            package: package,
            productID: productID,
            token: token,
            authorization: authorization,
            body: body
        ) {
            return refusal
        }
        let specification = SyntheticPurchaseToken(token: token)
        return ledger.finalize(token, productID: productID, action: action) { seen, failure in
            if let failure { return .scripted(failure) }
            guard let specification else { return .tokenNotFound }
            if let expected = specification.productID, expected != productID { return .invalidValue }
            let pending = seen.lookups < specification.pendingCalls ?? 0
            guard !pending, specification.state == 0 else { return .failedPrecondition }
            // Google answers acknowledge with an empty object and consume with an empty body.
            return action == .acknowledge ? GooglePlayAnswer(status: 200, body: "{}") : GooglePlayAnswer(status: 200)
        }
    }

    /// What Google answers a finalizing call (`action`) before it looks at the purchase: a bad bearer, another
    /// package, a body that is not a JSON object. A refusal is recorded, and uses none of the failures
    /// ``failFinalizations(_:status:)`` scripted; nil when the call gets as far as the purchase.
    func finalizationRefusal(
        _ action: RecordedGoogleFinalization.Action,
        package: String,
        productID: String,
        token: String,
        authorization: String?,
        body: String
    ) -> GooglePlayAnswer? {
        let refusal: GooglePlayAnswer? =
            if ledger.bearerFailure(authorization) != nil {
                .unauthenticated
            } else if package != configuration.packageName {
                .permissionDenied
            } else if !Self.isEmptyOrJSONObject(body) {
                .error(400, "Invalid JSON payload received.", "INVALID_ARGUMENT")
            } else {
                nil
            }
        if let refusal {
            ledger.record(
                RecordedGoogleFinalization(
                    token: token,
                    productID: productID,
                    action: action,
                    httpStatus: refusal.status,
                    receivedAt: Date()
                )
            )
        }
        return refusal
    }

    /// Acknowledge takes an optional `{"developerPayload":…}`; consume takes nothing.
    private static func isEmptyOrJSONObject(_ body: String) -> Bool {
        body.allSatisfy(\.isWhitespace)
            || (try? JSONSerialization.jsonObject(with: Data(body.utf8))) is [String: Any]
    }
}
