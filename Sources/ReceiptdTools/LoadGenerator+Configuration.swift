extension LoadGenerator {
    /// How many orders, how fast, and of which kinds.
    package struct Configuration: Sendable {
        /// Orders to create (a replay pair counts as two).
        package var orders: Int
        /// Orders per second; `nil` enqueues as fast as the database takes them.
        package var rate: Double?
        /// Distinct users the orders are spread over.
        package var users: Int
        /// Shares of the kinds of orders.
        package var mix: LoadMix
        /// Most enqueue calls per statement.
        package var batchSize: Int
        /// Seconds between a `replace` order's first receipt and its newer one.
        package var replaceDelay: Double
        /// Mints signed transactions for the `transaction` kind; needed only when the mix has it.
        package var signer: TransactionSigner?

        /// Creates a configuration; the defaults are the mix, unthrottled, in batches of 500.
        package init(
            orders: Int,
            rate: Double? = nil,
            users: Int = 10_000,
            mix: LoadMix = .standard,
            batchSize: Int = 500,
            replaceDelay: Double = 0.05,
            signer: TransactionSigner? = nil
        ) {
            self.signer = signer
            self.orders = orders
            self.rate = rate
            self.users = users
            self.mix = mix
            self.batchSize = batchSize
            self.replaceDelay = replaceDelay
        }
    }
}
