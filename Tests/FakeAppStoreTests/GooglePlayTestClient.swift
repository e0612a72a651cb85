import FakeAppStore
import Foundation
import Testing
import _CryptoExtras

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stand-in Google Play started on an ephemeral port for one test, assertions signed as the daemon signs them,
/// and plain HTTP calls to it.
struct GooglePlayTestClient {
    let standIn: GooglePlayStandIn

    /// Starts a stand-in, runs `body` against it, and shuts it down whatever happens.
    static func with<T>(
        _ configuration: GooglePlayStandIn.Configuration = .init(),
        _ body: (GooglePlayTestClient) async throws -> T
    ) async throws -> T {
        let standIn = GooglePlayStandIn(configuration: configuration)
        _ = try await standIn.start()
        do {
            let result = try await body(GooglePlayTestClient(standIn: standIn))
            try await standIn.shutdown()
            return result
        } catch {
            try await standIn.shutdown()
            throw error
        }
    }

    /// An RS256 JWT bearer assertion; each argument overrides what the daemon would put.
    func assertion(
        key: _RSA.Signing.PrivateKey? = nil,
        issuer: String? = nil,
        audience: String? = nil,
        scope: String = "https://www.googleapis.com/auth/androidpublisher",
        issuedAt: Date = Date(),
        lifetime: TimeInterval = 3600
    ) throws -> String {
        let header = try JSONSerialization.data(withJSONObject: [
            "alg": "RS256", "typ": "JWT", "kid": standIn.serviceAccount.privateKeyID,
        ])
        let iat = Int(issuedAt.timeIntervalSince1970)
        let claims = try JSONSerialization.data(
            withJSONObject: [
                "iss": issuer ?? standIn.serviceAccount.clientEmail, "scope": scope,
                "aud": audience ?? standIn.tokenURL,
                "iat": iat, "exp": iat + Int(lifetime),
            ] as [String: Any]
        )
        let input = Self.base64url(header) + "." + Self.base64url(claims)
        // The key as the daemon reads it: PKCS#8 PEM from the key file.
        let signer = try key ?? _RSA.Signing.PrivateKey(pemRepresentation: standIn.serviceAccount.privateKeyPEM)
        let signature = try signer.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Self.base64url(signature.rawRepresentation)
    }

    /// `POST /token` with a JWT bearer grant.
    func grant(_ assertion: String) async throws -> Answer {
        try await send(
            "POST",
            standIn.tokenURL,
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion,
            contentType: "application/x-www-form-urlencoded"
        )
    }

    /// A fresh access token granted for a good assertion.
    func accessToken() async throws -> String {
        try #require(try await grant(try assertion()).json["access_token"] as? String)
    }

    /// The `purchases.products` URL of `token`, `suffix` being `:acknowledge` or `:consume` if any.
    func productURL(
        _ token: String,
        product: String = "gems",
        package: String = "com.example.game",
        suffix: String = ""
    ) -> String {
        standIn.baseURL
            + "/androidpublisher/v3/applications/\(package)/purchases/products/\(product)/tokens/\(token)\(suffix)"
    }

    /// The `purchases.voidedpurchases` URL with `query`.
    func voidedURL(_ query: String) -> String {
        standIn.baseURL + "/androidpublisher/v3/applications/com.example.game/purchases/voidedpurchases?" + query
    }

    /// One HTTP call.
    func send(
        _ method: String,
        _ url: String,
        bearer: String? = nil,
        body: String? = nil,
        contentType: String? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        if let bearer {
            request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue(contentType ?? "application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Answer(status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After"), body: data)
    }

    /// An answer as the client saw it.
    struct Answer {
        var status: Int
        var retryAfter: String?
        var body: Data

        /// The body as a JSON object (empty when it is not one).
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }

        /// `error.status` of Google's error body.
        var errorStatus: String? {
            (json["error"] as? [String: Any])?["status"] as? String
        }
    }

    private static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
