/// An `orders.get` call the stand-in Google Play received, whatever it answered.
package struct RecordedGoogleOrderQuery: Sendable, Equatable {
    /// The order id in the path.
    package var orderID: String
    /// The HTTP status answered.
    package var httpStatus: Int
}
