/// The environment a store answered from: the App Store's production or sandbox, or for Google Play the
/// `purchaseType` of a purchase (a test purchase counts as `sandbox`). The raw values are Apple's spellings,
/// which `iap.jobs.environment` and `iap.deliveries.environment` hold for every store.
package enum StoreEnvironment: String, Sendable, Equatable, Codable {
    /// Real money: `buy.itunes.apple.com`, the Server API's production, a Google purchase that is not a test.
    case production = "Production"
    /// Test purchases: `sandbox.itunes.apple.com`, the Server API's sandbox, a Google license-tester purchase.
    case sandbox = "Sandbox"
}
