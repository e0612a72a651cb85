import AsyncHTTPClient
import Foundation
import NIOCore
import _CryptoExtras

/// Google's published OIDC keys (a JWKS at `GOOGLE_OIDC_CERTS_URL`), cached as long as their `Cache-Control:
/// max-age` allows (``defaultMaxAge`` without one). A token naming a `kid` the cache lacks makes one re-fetch (Google
/// rotates keys), but at most one every ``refetchInterval``, so tokens with made-up kids cannot make a fetch per
/// request. Callers asking while a fetch is under way share it.
package actor GoogleOIDCKeys {
    /// How long keys are kept when the answer has no `max-age`.
    package static let defaultMaxAge: Duration = .seconds(300)

    /// What one fetch brought.
    struct Fetched: Sendable {
        /// The RS256 signing keys by `kid`.
        var keys: [String: _RSA.Signing.PublicKey]
        /// How long they may be kept.
        var maxAge: Duration
    }

    private let url: String
    private let client: HTTPClient
    private let timeout: Duration
    private let refetchInterval: Duration
    private var keys: [String: _RSA.Signing.PublicKey] = [:]
    private var freshUntil: ContinuousClock.Instant?
    private var lastUnknownRefetch: ContinuousClock.Instant?
    private var fetching: Task<Fetched, any Error>?

    /// Creates an empty cache of the keys at `url`; nothing is fetched until a token needs a key.
    ///
    /// - Parameters:
    ///   - timeout: for one fetch (short: Pub/Sub waits about ten seconds for the answer to a push).
    ///   - refetchInterval: the least time between two re-fetches for unknown kids.
    package init(
        url: String,
        client: HTTPClient,
        timeout: Duration = .seconds(5),
        refetchInterval: Duration = .seconds(30)
    ) {
        self.url = url
        self.client = client
        self.timeout = timeout
        self.refetchInterval = refetchInterval
    }

    /// The key `id` names; nil when Google does not publish it (even after the one re-fetch allowed). Throws
    /// `.keysUnavailable` when the keys are needed and cannot be fetched.
    func key(id: String) async throws(GoogleOIDCVerifier.Failure) -> _RSA.Signing.PublicKey? {
        if fetching != nil {
            try await refresh()
            if let key = keys[id] { return key }
        }
        if freshUntil.map({ $0 > .now }) != true {
            try await refresh()
            return keys[id]
        }
        if let key = keys[id] { return key }
        if let last = lastUnknownRefetch, ContinuousClock.now - last < refetchInterval { return nil }
        lastUnknownRefetch = .now
        try await refresh()
        return keys[id]
    }

    /// Fetches the keys, or waits for the fetch under way, and keeps what it brought.
    private func refresh() async throws(GoogleOIDCVerifier.Failure) {
        let task: Task<Fetched, any Error>
        if let fetching {
            task = fetching
        } else {
            let (url, client, timeout) = (url, client, timeout)
            task = Task { try await Self.download(url: url, client: client, timeout: timeout) }
            fetching = task
        }
        let result = await task.result
        if fetching == task { fetching = nil }
        switch result {
        case .success(let fetched):
            keys = fetched.keys
            freshUntil = .now + fetched.maxAge
        case .failure(let error):
            throw .keysUnavailable("\(error)")
        }
    }

    /// One GET of the JWKS.
    private static func download(url: String, client: HTTPClient, timeout: Duration) async throws -> Fetched {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let response = try await client.execute(request, timeout: .init(timeout))
        let body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        guard response.status == .ok else {
            throw GoogleAuthError(description: "\(url) answered HTTP \(response.status.code)")
        }
        let keys = try parse(jwks: body)
        let maxAge = maxAge(cacheControl: response.headers.first(name: "cache-control")) ?? defaultMaxAge
        return Fetched(keys: keys, maxAge: maxAge)
    }

    /// The RSA signing keys of a JWKS by `kid` (entries of another type, use or algorithm are left out); throws
    /// when it is not a JWKS or has none.
    static func parse(jwks: Data) throws -> [String: _RSA.Signing.PublicKey] {
        guard let object = (try? JSONSerialization.jsonObject(with: jwks)) as? [String: Any],
            let entries = object["keys"] as? [[String: Any]]
        else { throw GoogleAuthError(description: "the OIDC certs are not a JWKS") }
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for entry in entries {
            guard entry["kty"] as? String == "RSA", (entry["alg"] as? String ?? "RS256") == "RS256",
                (entry["use"] as? String ?? "sig") == "sig", let kid = entry["kid"] as? String,
                let n = (entry["n"] as? String).flatMap(Base64URL.decode),
                let e = (entry["e"] as? String).flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { continue }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw GoogleAuthError(description: "the OIDC certs hold no RS256 key") }
        return keys
    }

    /// How long `Cache-Control` allows an answer to be kept: its `max-age`; zero for `no-store` or `no-cache`; nil
    /// when it says neither (or there is no header).
    static func maxAge(cacheControl: String?) -> Duration? {
        guard let cacheControl else { return nil }
        var maxAge: Duration?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard let name = parts.first else { continue }
            switch name {
            case "no-store", "no-cache":
                return .zero
            case "max-age" where parts.count == 2:
                let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if let seconds = Int64(value), seconds >= 0 { maxAge = .seconds(seconds) }
            default:
                continue
            }
        }
        return maxAge
    }
}
