import Foundation

/// An order as the planner sees it: read under lock inside the recording transaction.
package struct OrderSnapshot: Sendable, Equatable {
    /// `order_id`.
    package var orderID: String
    /// `product_id`.
    package var productID: String
    /// `quantity`.
    package var quantity: Int
    /// `created_at` in milliseconds since 1970.
    package var createdAtMilliseconds: Int64
    /// `delivered_quantity` so far.
    package var deliveredQuantity: Int
    /// When the game created the order at checkout, before payment; `nil` for an order first seen with its
    /// receipt, which has no time of its own before the payment and so no purchase-date bound.
    package var checkoutAtMilliseconds: Int64?
    /// The account token the order was enqueued with: when set, only a purchase carrying the same token pays it.
    package var appAccountToken: UUID?
    /// The Google Play account id the order was enqueued with: when set, only a purchase whose
    /// `obfuscatedExternalAccountId` equals it pays the order.
    package var accountID: String?

    /// Creates a snapshot.
    package init(
        orderID: String,
        productID: String,
        quantity: Int,
        createdAtMilliseconds: Int64,
        deliveredQuantity: Int = 0,
        checkoutAtMilliseconds: Int64? = nil,
        appAccountToken: UUID? = nil,
        accountID: String? = nil
    ) {
        self.accountID = accountID
        self.checkoutAtMilliseconds = checkoutAtMilliseconds
        self.appAccountToken = appAccountToken
        self.orderID = orderID
        self.productID = productID
        self.quantity = quantity
        self.createdAtMilliseconds = createdAtMilliseconds
        self.deliveredQuantity = deliveredQuantity
    }
}
