import AsyncHTTPClient
import Foundation
import NIOCore

/// OAuth 2.0 access tokens for the Android Publisher API, by the JWT bearer grant (RFC 7523): an RS256 assertion
/// signed with the service account's key, traded at its `token_uri`. One token is shared by every job of the
/// daemon until shortly before it expires; one refresh at a time.
actor GoogleAccessTokens {
    static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// A token is replaced this long before Google says it expires.
    static let renewalMargin: Duration = .seconds(60)

    private let account: GoogleServiceAccount
    private let client: HTTPClient
    private let timeout: Duration
    private var current: (token: String, renewAt: ContinuousClock.Instant)?
    private var refreshing: Task<(token: String, renewAt: ContinuousClock.Instant), any Error>?

    init(account: GoogleServiceAccount, client: HTTPClient, timeout: Duration) {
        self.account = account
        self.client = client
        self.timeout = timeout
    }

    /// A valid token; `replacing` a token the API refused gets a new one (unless another job already did).
    func token(replacing refused: String? = nil) async throws -> String {
        if let current, current.renewAt > .now, current.token != refused { return current.token }
        if let refreshing { return try await refreshing.value.token }
        let task = Task { try await self.fetch() }
        refreshing = task
        defer { refreshing = nil }
        let fresh = try await task.value
        current = fresh
        return fresh.token
    }

    private func fetch() async throws -> (token: String, renewAt: ContinuousClock.Instant) {
        let assertion = try assertion(now: Date())
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(
            ByteBuffer(
                string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
            )
        )
        let response = try await client.execute(request, timeout: .init(timeout))
        let body = Data(try await response.body.collect(upTo: 1 << 16).readableBytesView)
        let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        guard response.status == .ok, let token = fields?["access_token"] as? String, !token.isEmpty else {
            let reason = (fields?["error_description"] as? String) ?? (fields?["error"] as? String) ?? "no access_token"
            throw GoogleAuthError(
                description: "token endpoint answered HTTP \(response.status.code): \(reason.prefix(200))"
            )
        }
        let lifetime = FlexibleJSON.integer(fields?["expires_in"]).map { Duration.seconds($0) } ?? .seconds(3600)
        return (token, .now + max(.zero, lifetime - Self.renewalMargin))
    }

    /// The RS256 assertion: `iss` the account, `scope` the Android Publisher API, `aud` the token endpoint, an hour.
    private func assertion(now: Date) throws -> String {
        let issued = Int64(now.timeIntervalSince1970)
        let header = JSONText.object([("alg", .string("RS256")), ("typ", .string("JWT"))])
        let claims = JSONText.object([
            ("iss", .string(account.clientEmail)), ("scope", .string(Self.scope)), ("aud", .string(account.tokenURI)),
            ("iat", .int(issued)), ("exp", .int(issued + 3600)),
        ])
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try account.privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

/// The token endpoint refused the service account, or answered nonsense.
struct GoogleAuthError: Error, CustomStringConvertible {
    var description: String
}
