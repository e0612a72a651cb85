/// The arguments of `iap.enqueue_receipt`, as `receiptd enqueue` takes them.
package struct EnqueueRequest: Sendable, Equatable {
    /// The game's order id.
    package var orderID: String
    /// The paying user.
    package var userID: String
    /// The product bought.
    package var productID: String
    /// Units ordered.
    package var quantity: Int
    /// Base64 receipt data; whitespace anywhere in it (line wrapping, a trailing newline) is removed.
    package var receiptData: String

    /// Creates a request.
    package init(orderID: String, userID: String, productID: String, quantity: Int = 1, receiptData: String) {
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
