extension GooglePlayStandIn {
    /// `baseURL + "/oauth2/v3/certs"`: the daemon's `GOOGLE_OIDC_CERTS_URL`.
    package var oidcCertsURL: String {
        baseURL + "/oauth2/v3/certs"
    }

    /// How many times the JWKS was fetched.
    package func jwksFetches() -> Int {
        jwksServing.withLock { $0.fetches }
    }

    /// Serves the JWKS with `Cache-Control: public, max-age=<seconds>` from now on.
    package func setJWKSMaxAge(_ seconds: Int) {
        jwksServing.withLock { $0.maxAge = seconds }
    }

    /// `GET /oauth2/v3/certs`.
    func jwks() -> GooglePlayAnswer {
        let maxAge = jwksServing.withLock {
            $0.fetches += 1
            return $0.maxAge
        }
        return GooglePlayAnswer(
            status: 200,
            body: oidc.jwksJSON,
            headers: [("cache-control", "public, max-age=\(maxAge), must-revalidate, no-transform")]
        )
    }
}
