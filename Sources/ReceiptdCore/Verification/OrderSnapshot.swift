/// An order as the planner sees it: read under lock inside the recording transaction.
public struct OrderSnapshot: Sendable, Equatable {
    /// `order_id`.
    public var orderID: String
    /// `product_id`.
    public var productID: String
    /// `quantity`.
    public var quantity: Int
    /// `created_at` in milliseconds since 1970.
    public var createdAtMilliseconds: Int64
    /// `delivered_quantity` so far.
    public var deliveredQuantity: Int

    /// Creates a snapshot.
    public init(orderID: String, productID: String, quantity: Int, createdAtMilliseconds: Int64, deliveredQuantity: Int = 0) {
        self.orderID = orderID
        self.productID = productID
        self.quantity = quantity
        self.createdAtMilliseconds = createdAtMilliseconds
        self.deliveredQuantity = deliveredQuantity
    }
}
