import Foundation

extension ServerAPIClient {
    /// Set App Account Token: records `token` for the purchase `originalTransactionID` in `environment`. A 200 is
    /// `.found`, anything else the verdict it earns (transient: no answer, 5xx, 429, 401; otherwise for good, such
    /// as a family-shared purchase, errorCode 4000185).
    func setAppAccountToken(
        _ token: UUID,
        originalTransactionID: String,
        environment: StoreEnvironment
    ) async -> ServerAPIOutcome {
        let body = Data("{\"appAccountToken\":\"\(token.uuidString.lowercased())\"}".utf8)
        return await send(
            environment,
            .appAccountToken,
            method: .PUT,
            path: "/inApps/v1/transactions/" + Self.pathSegment(originalTransactionID) + "/appAccountToken",
            body: body,
            success: 200
        )
    }
}
