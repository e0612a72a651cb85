import Crypto
import Foundation
import ReceiptdCore

/// Checks the `Authorization` header of an App Store Server API call the way
/// Apple documents its JWT: ES256, the key id, the issuer, the audience, the
/// bundle id and a lifetime of at most an hour.
struct ServerAPIBearerCheck: Sendable {
    /// The configured API key; `nil` checks only that a bearer token is present.
    let key: P256.Signing.PublicKey?
    let keyID: String
    let issuerID: String
    let bundleID: String

    init(configuration: AppStoreStandIn.Configuration) {
        key = configuration.serverAPIKey
        keyID = configuration.serverAPIKeyID
        issuerID = configuration.serverAPIIssuerID
        bundleID = configuration.serverAPIBundleID
    }

    /// Why the header is refused, or `nil` when it is accepted.
    func failure(authorization: String?, now: Date = Date()) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let token = authorization.dropFirst("Bearer ".count)
        guard !token.isEmpty else { return "empty bearer token" }
        guard let key else { return nil }

        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let header = Self.object(parts[0]), let claims = Self.object(parts[1]),
            let signatureBytes = Base64URL.decode(parts[2])
        else { return "malformed token" }
        guard header["alg"] as? String == "ES256" else { return "alg is not ES256" }
        guard header["kid"] as? String == keyID else { return "kid is not \(keyID)" }
        guard header["typ"] as? String == "JWT" else { return "typ is not JWT" }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            key.isValidSignature(signature, for: Data(token[..<parts[1].endIndex].utf8))
        else { return "bad signature" }

        guard claims["iss"] as? String == issuerID else { return "iss is not \(issuerID)" }
        guard claims["aud"] as? String == AppStoreStandIn.Configuration.serverAPIAudience else {
            return "aud is not \(AppStoreStandIn.Configuration.serverAPIAudience)"
        }
        guard claims["bid"] as? String == bundleID else { return "bid is not \(bundleID)" }
        guard let issuedAt = Self.seconds(claims["iat"]), let expiresAt = Self.seconds(claims["exp"])
        else { return "iat or exp missing" }
        let nowSeconds = now.timeIntervalSince1970
        if issuedAt > nowSeconds + 60 { return "iat in the future" }
        if expiresAt <= nowSeconds { return "expired" }
        if expiresAt - issuedAt > 3600 { return "lifetime over an hour" }
        return nil
    }

    /// A NumericDate claim; JWT allows fractions though Apple's examples use whole seconds.
    private static func seconds(_ value: Any?) -> Double? {
        (value as? Int).map(Double.init) ?? value as? Double
    }

    /// A JWT segment's JSON object.
    private static func object(_ segment: Substring) -> [String: Any]? {
        Base64URL.decode(segment).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
    }
}
