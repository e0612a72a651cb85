/// The arguments of `iap.enqueue_receipt`, as `receiptd enqueue` takes them.
public struct EnqueueRequest: Sendable, Equatable {
    /// The game's order id.
    public var orderID: String
    /// The paying user.
    public var userID: String
    /// The product bought.
    public var productID: String
    /// Units ordered.
    public var quantity: Int
    /// Base64 receipt data; whitespace anywhere in it (line wrapping, a trailing newline) is removed.
    public var receiptData: String

    /// Creates a request.
    public init(orderID: String, userID: String, productID: String, quantity: Int = 1, receiptData: String) {
        self.orderID = orderID
        self.userID = userID
        self.productID = productID
        self.quantity = quantity
        self.receiptData = receiptData
    }

    /// The receipt without whitespace: base64 has none of its own, and `base64` wraps lines at 76 columns.
    var compactReceiptData: String {
        String(receiptData.unicodeScalars.filter { !$0.properties.isWhitespace })
    }
}
