/// Sorts one productsv2 (or `purchases.products.get`) answer into a verdict: a pure function of the HTTP status, Google's error
/// message and the decoded purchase, tested without I/O.
enum GooglePlayClassifier {
    /// What the answer is about: the job's token and product, and how long the job has existed.
    struct Lookup: Sendable {
        /// The purchase token asked about.
        var token: String
        /// The product it was asked under.
        var productID: String
        /// Time since the job was enqueued, which sets how soon a pending purchase is asked about again.
        var waited: Duration
    }

    /// The attempt `status` earns: with a 200, `purchase` is its decoded body (`nil` when it could not be read);
    /// otherwise `errorMessage` is Google's `error.message` and `retryAfter` its `Retry-After`.
    static func classify(
        status: Int,
        purchase: GoogleProductPurchase?,
        errorMessage: String? = nil,
        retryAfter: Duration? = nil,
        lookup: Lookup,
        configuration: GooglePlayConfiguration
    ) -> VerificationAttempt {
        guard status == 200 else { return refusal(status: status, errorMessage: errorMessage, retryAfter: retryAfter) }
        guard let purchase else {
            return VerificationAttempt(
                verdict: .retry(
                    TransientFailure(errorClass: .garbled, reason: "Google Play: a 200 without purchaseState")
                ),
                httpStatus: 200
            )
        }
        return judge(purchase, lookup: lookup, configuration: configuration)
    }

    /// The attempt an answer other than 200 earns, whatever was looked up: a token Google does not know is
    /// invalid; refused credentials and anything else are retried.
    static func refusal(status: Int, errorMessage: String?, retryAfter: Duration?) -> VerificationAttempt {
        let described = "Google Play: HTTP \(status)" + (errorMessage.map { " (\($0))" } ?? "")
        let verdict: Verdict
        switch status {
        case 400:
            verdict = .reject(reason: described + ": the purchase token is invalid")
        case 404, 410:
            verdict = .reject(reason: described + ": no such purchase token")
        case 401:
            verdict = .retry(
                TransientFailure(errorClass: .credentials, reason: described + ": the access token was refused twice")
            )
        case 403:
            verdict = .retry(
                TransientFailure(errorClass: .credentials, reason: described + ": no access to this package")
            )
        default:
            verdict = .retry(TransientFailure(errorClass: .http, reason: described, notBefore: retryAfter))
        }
        return VerificationAttempt(verdict: verdict, httpStatus: status)
    }

    /// A `ProductPurchase`: purchased pays (per the outcome rules), cancelled pays nothing, pending waits.
    private static func judge(
        _ purchase: GoogleProductPurchase,
        lookup: Lookup,
        configuration: GooglePlayConfiguration
    ) -> VerificationAttempt {
        let environment = purchase.environment
        let state = Int(purchase.purchaseState.code)
        if purchase.purchaseState == .pending {
            let wait = PendingSchedule.delay(afterWaiting: lookup.waited)
            return VerificationAttempt(
                verdict: .postpone(
                    after: wait,
                    reason:
                        "pending at Google (purchaseState 2, e.g. cash or bank transfer): asking again in \(Int(wait.seconds / 60)) min"
                ),
                environment: environment,
                storeStatus: state,
                httpStatus: 200
            )
        }
        let verified = purchases(of: purchase, lookup: lookup)
        // Which call is owed depends on the product's kind, which the settle reads from the catalogue
        // (`GoogleFinalization.owed(for:)`): here, what Google already has.
        let finalization =
            purchase.purchaseState == .purchased
            ? GoogleFinalization(
                purchaseToken: lookup.token,
                productID: verified.first?.productID ?? lookup.productID,
                action: configuration.finalize,
                overdue: configuration.finalizeOverdue,
                done: purchase.finalizedBy
            )
            : nil
        return VerificationAttempt(
            verdict: .verified(
                VerifiedPurchases(
                    purchases: verified,
                    environment: environment,
                    bundleID: configuration.packageName,
                    store: .google,
                    finalization: finalization
                )
            ),
            environment: environment,
            storeStatus: state,
            httpStatus: 200
        )
    }

    /// The ledger's purchases in `purchase`: one per line item, each for the product Google names (the product
    /// asked about when it names none). The first keeps the purchase's ledger id, the n-th adds `#n`; all go back
    /// to the first (`originalTransactionID`). A line whose units were all refunded is cancelled; one refunded in
    /// part carries the refunded units, which the ledger revokes.
    static func purchases(of purchase: GoogleProductPurchase, lookup: Lookup) -> [VerifiedPurchase] {
        let ledgerID = purchase.ledgerID(token: lookup.token)
        let lines =
            purchase.lineItems.isEmpty
            ? [GoogleProductPurchase.LineItem(productID: nil, quantity: purchase.quantity)] : purchase.lineItems
        return lines.enumerated().map { index, line in
            var verified = VerifiedPurchase(
                transactionID: index == 0 ? ledgerID : "\(ledgerID)#\(index + 1)",
                originalTransactionID: ledgerID,
                productID: line.productID ?? lookup.productID,
                quantity: line.quantity,
                purchaseDateMilliseconds: purchase.purchaseTimeMilliseconds,
                isCancelled: purchase.purchaseState != .purchased
                    || (line.quantity.map { line.refundedQuantity >= $0 } ?? false),
                accountID: purchase.accountID,
                store: .google
            )
            verified.refundedQuantity = line.refundedQuantity
            verified.details.purchaseOptionID = line.purchaseOptionID
            verified.details.offerID = line.offerID
            return verified
        }
    }
}
