extension GooglePlayAnswer {
    /// Google's error body, `{"error":{"code":…,"message":…,"status":…}}`.
    private struct ErrorBody: Encodable {
        struct Detail: Encodable {
            var code: Int
            var message: String
            var status: String
        }

        var error: Detail
    }

    /// An API error as Google words it.
    static func error(_ code: Int, _ message: String, _ status: String) -> GooglePlayAnswer {
        json(code, ErrorBody(error: .init(code: code, message: message, status: status)))
    }

    /// 401: no access token, or one this stand-in did not issue, or expired, or revoked.
    static let unauthenticated = error(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")

    /// 403: a package other than the configured one.
    static let permissionDenied = error(
        403,
        "The current user has insufficient permissions to perform the requested operation.",
        "PERMISSION_DENIED"
    )

    /// 404: a purchase token that is not a synthetic one.
    static let tokenNotFound = error(404, "The purchase token was not found.", "NOT_FOUND")

    /// 404: a path the API does not have.
    static let noSuchPath = error(404, "Requested entity was not found.", "NOT_FOUND")

    /// 400: a malformed argument (Google's wording for an invalid token or a product that is not the token's).
    static let invalidValue = error(400, "Invalid Value", "INVALID_ARGUMENT")

    /// 400: acknowledging or consuming a purchase that is not purchased (pending, cancelled).
    static let failedPrecondition = error(
        400,
        "The purchase is not in a valid state to perform the desired operation.",
        "FAILED_PRECONDITION"
    )

    /// The error Google sends with `status`, for script steps and ``GooglePlayStandIn/failFinalizations(_:status:)``.
    static func scripted(_ status: Int) -> GooglePlayAnswer {
        switch status {
        case 400: invalidValue
        case 401: unauthenticated
        case 403: permissionDenied
        case 404: tokenNotFound
        case 409: error(409, "The operation was aborted.", "ABORTED")
        case 410: error(410, "The purchase token is no longer valid.", "NOT_FOUND")
        case 429:
            error(
                429,
                "Quota exceeded for quota metric 'Queries' of service 'androidpublisher.googleapis.com'.",
                "RESOURCE_EXHAUSTED"
            )
        case 500: error(500, "Internal error encountered.", "INTERNAL")
        case 503: error(503, "The service is currently unavailable.", "UNAVAILABLE")
        default: error(status, "Backend Error", "UNKNOWN")
        }
    }
}
