import Foundation
import NIOHTTP1

extension ServerAPIClient {
    /// `/inApps/v2/transactions/consumption/{id}`: Send Consumption Information v2 (`PUT`, 202 when accepted).
    static func consumptionPath(_ id: String) -> String {
        "/inApps/v2/transactions/consumption/" + pathSegment(id)
    }

    /// `/inApps/v1/notifications/history`, with the page's `paginationToken` after the first: Get Notification History.
    static func notificationHistoryPath(paginationToken: String?) -> String {
        "/inApps/v1/notifications/history" + (paginationToken.map { "?paginationToken=" + pathSegment($0) } ?? "")
    }

    /// Sends the consumption information `body` (JSON) for `transactionID` to `environment`: a 202 is
    /// `.found`, anything else the verdict it earns (transient: no answer, 5xx, 429, 401; otherwise for good).
    func sendConsumption(_ body: Data, transactionID: String, environment: StoreEnvironment) async -> ServerAPIOutcome {
        await send(
            environment,
            .consumption,
            method: .PUT,
            path: Self.consumptionPath(transactionID),
            body: body,
            success: 202
        )
    }

    /// One page of `environment`'s notification history signed from `startMilliseconds` to `endMilliseconds`:
    /// the page, or the verdict the request earned (a garbled 200 is a transient failure).
    func notificationHistory(
        _ environment: StoreEnvironment,
        startMilliseconds: Int64,
        endMilliseconds: Int64,
        paginationToken: String?
    ) async -> Result<NotificationHistoryPage, NotificationHistoryFailure> {
        // Apple wants the same body on every page; the token goes in the query.
        let body = Data("{\"startDate\":\(startMilliseconds),\"endDate\":\(endMilliseconds)}".utf8)
        let outcome = await send(
            environment,
            .notificationHistory,
            method: .POST,
            path: Self.notificationHistoryPath(paginationToken: paginationToken),
            body: body
        )
        switch outcome.answer {
        case .verdict(let verdict):
            return .failure(NotificationHistoryFailure(verdict: verdict))
        case .found(let data):
            guard let page = try? JSONDecoder().decode(NotificationHistoryPage.self, from: data) else {
                return .failure(
                    NotificationHistoryFailure(
                        verdict: .retry(
                            TransientFailure(errorClass: .garbled, reason: "\(outcome.label): history page not read")
                        )
                    )
                )
            }
            return .success(page)
        }
    }
}
