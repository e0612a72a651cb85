/// The two verifyReceipt environments; the raw values are the spellings Apple uses in `environment`.
package enum AppleEnvironment: String, Sendable, Equatable, Codable {
    /// `buy.itunes.apple.com`.
    case production = "Production"
    /// `sandbox.itunes.apple.com`.
    case sandbox = "Sandbox"
}
