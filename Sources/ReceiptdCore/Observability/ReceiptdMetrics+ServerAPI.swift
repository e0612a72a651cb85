import CoreMetrics

extension ReceiptdMetrics.Name {
    /// Counter by `api` (an App Store Server API endpoint, `apple_transaction_info` …): 429s whose `Retry-After`
    /// blocked that endpoint.
    package static let serverAPIBlocks = "receiptd_server_api_blocks_total"
}

extension ReceiptdMetrics {
    /// `endpoint` answered 429 and is blocked until its `Retry-After`.
    package func serverAPIBlocked(_ endpoint: AppStoreServerEndpoint) {
        Counter(label: Name.serverAPIBlocks, dimensions: [("api", endpoint.rawValue)], factory: factory).increment()
    }
}
