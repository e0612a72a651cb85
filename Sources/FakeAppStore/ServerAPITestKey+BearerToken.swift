import Foundation
import ReceiptdCore

extension ServerAPITestKey {
    /// Mints an App Store Server API bearer token (ES256 JWT) the way the daemon should,
    /// so tests can call the stand-in directly; every claim can be bent to test refusals.
    ///
    /// Defaults match ``AppStoreStandIn/Configuration``'s defaults and a 20-minute lifetime.
    package func bearerToken(
        keyID: String = AppStoreStandIn.Configuration.defaultServerAPIKeyID,
        issuerID: String = AppStoreStandIn.Configuration.defaultServerAPIIssuerID,
        bundleID: String = SyntheticReceipt.defaultBundleID,
        audience: String = AppStoreStandIn.Configuration.serverAPIAudience,
        issuedAt: Date = Date(),
        lifetime: TimeInterval = 20 * 60
    ) -> String {
        let header: [String: Any] = ["alg": "ES256", "kid": keyID, "typ": "JWT"]
        let issued = Int64(issuedAt.timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": issuerID, "iat": issued, "exp": issued + Int64(lifetime), "aud": audience, "bid": bundleID,
        ]
        let signingInput = Self.segment(header) + "." + Self.segment(claims)
        do {
            let signature = try privateKey.signature(for: Data(signingInput.utf8))
            return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        } catch {
            // BoringSSL only fails to sign on allocation failure.
            preconditionFailure("ES256 signing failed: \(error)")
        }
    }

    private static func segment(_ object: [String: Any]) -> String {
        do {
            return Base64URL.encode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        } catch {
            // Strings and integers only.
            preconditionFailure("JWT segment failed to encode: \(error)")
        }
    }
}
