import Foundation

extension GooglePlayStandIn {
    /// `orders.get`: bearer, package, then the order a lookup named (its token's `order_status`, `price`,
    /// `currency` and line items' prices); an order no lookup named is not found. Every call is recorded.
    func order(package: String, orderID: String, authorization: String?) -> GooglePlayAnswer {
        let answer: GooglePlayAnswer
        if ledger.bearerFailure(authorization) != nil {
            answer = .unauthenticated
        } else if package != configuration.packageName {
            answer = .permissionDenied
        } else if let purchase = ledger.purchase(ofOrder: orderID) {
            if let status = purchase.orderStatus {
                answer =
                    status == 403
                    ? .error(403, "The caller does not have permission", "PERMISSION_DENIED") : .scripted(status)
            } else {
                let currency = purchase.currency ?? "USD"
                let lines = purchase.lineItems ?? [.init(productID: purchase.productID ?? "", price: purchase.price)]
                answer = .json(
                    200,
                    GoogleOrderBody(
                        orderId: orderID,
                        purchaseToken: nil,
                        lineItems: lines.map { line in
                            .init(
                                productId: line.productID,
                                total: line.price.flatMap { .init($0, currency: currency) }
                            )
                        },
                        total: purchase.price.flatMap { .init($0, currency: currency) }
                    )
                )
            }
        } else {
            answer = .error(404, "Order not found.", "NOT_FOUND")
        }
        ledger.record(RecordedGoogleOrderQuery(orderID: orderID, httpStatus: answer.status))
        return answer
    }
}
