import Foundation

extension GooglePlayStandIn {
    /// The OAuth 2.0 token endpoint's answer to a grant.
    private struct Grant: Encodable {
        var accessToken: String
        var expiresIn: Int
        var tokenType = "Bearer"

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case tokenType = "token_type"
        }
    }

    /// `POST /token` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`: an access token
    /// for an assertion ``GoogleAssertionCheck`` accepts, else 400 `invalid_grant` saying why. Every call is recorded.
    func grant(_ form: [String: String]) -> GooglePlayAnswer {
        let (error, failure): (String?, String?) = {
            guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
                return ("unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
            }
            guard let assertion = form["assertion"] else {
                return ("invalid_request", "Missing required parameter: assertion")
            }
            let failure = GoogleAssertionCheck(account: serviceAccount, audience: tokenURL).failure(
                assertion: assertion
            )
            return (failure.map { _ in "invalid_grant" }, failure)
        }()
        ledger.record(RecordedGoogleTokenRequest(accepted: failure == nil, failure: failure, receivedAt: Date()))
        if let error, let failure {
            return .json(400, ["error": error, "error_description": failure])
        }
        let lifetime = configuration.accessTokenLifetimeSeconds
        return .json(
            200,
            Grant(accessToken: ledger.issueAccessToken(lifetime: TimeInterval(lifetime)), expiresIn: lifetime)
        )
    }
}
