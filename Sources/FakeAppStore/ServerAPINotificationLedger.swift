import Foundation
import Synchronization

/// The stand-in's side of App Store Server Notifications, shared by every connection: the notifications it sent
/// (its notification history), the consumption information it was sent, the Get Notification History calls, and
/// the scripts of those two endpoints. One lock, held for a few array operations.
final class ServerAPINotificationLedger: Sendable {
    private struct State {
        var sent: [SentNotification] = []
        var consumption: [RecordedConsumptionRequest] = []
        var historyQueries: [RecordedNotificationHistoryQuery] = []
        var consumptionScript: [ScriptStep] = []
        var historyScript: [ScriptStep] = []
        var appAccountTokens: [RecordedAppAccountTokenRequest] = []
        var appAccountTokenScript: [ScriptStep] = []
    }

    private let state = Mutex(State())
    /// The chain notifications are signed with (the stand-in's ``AppStoreStandIn/testChain``).
    let chain: AppleTestChain

    /// Notifications per Get Notification History page, as Apple sends.
    static let historyPageSize = 20

    init(chain: AppleTestChain) {
        self.chain = chain
    }

    /// Remembers a sent notification (or what became of its delivery, replacing the entry with its id).
    func remember(_ notification: SentNotification) {
        state.withLock { state in
            if let index = state.sent.firstIndex(where: { $0.notificationUUID == notification.notificationUUID }) {
                state.sent[index] = notification
            } else {
                state.sent.append(notification)
            }
        }
    }

    /// The notifications sent so far, in the order they were signed.
    func sent() -> [SentNotification] {
        state.withLock { $0.sent }
    }

    /// Sets the steps the next Send Consumption Information calls get, one a call, in order (then the normal answer).
    func scriptConsumption(_ steps: [ScriptStep]) {
        state.withLock { $0.consumptionScript = steps }
    }

    /// Sets the steps the next Get Notification History calls get, one a call, in order.
    func scriptHistory(_ steps: [ScriptStep]) {
        state.withLock { $0.historyScript = steps }
    }

    /// Sets the steps the next Set App Account Token calls get, one a call, in order (then the normal answer).
    func scriptAppAccountToken(_ steps: [ScriptStep]) {
        state.withLock { $0.appAccountTokenScript = steps }
    }

    /// The next Set App Account Token step, taken off the script.
    func nextAppAccountTokenStep() -> ScriptStep? {
        state.withLock { $0.appAccountTokenScript.isEmpty ? nil : $0.appAccountTokenScript.removeFirst() }
    }

    /// Logs a Set App Account Token call.
    func record(_ request: RecordedAppAccountTokenRequest) {
        state.withLock { $0.appAccountTokens.append(request) }
    }

    /// The Set App Account Token calls so far, in arrival order.
    func appAccountTokenRequests() -> [RecordedAppAccountTokenRequest] {
        state.withLock { $0.appAccountTokens }
    }

    /// The next Send Consumption Information step, taken off the script.
    func nextConsumptionStep() -> ScriptStep? {
        state.withLock { $0.consumptionScript.isEmpty ? nil : $0.consumptionScript.removeFirst() }
    }

    /// The next Get Notification History step, taken off the script.
    func nextHistoryStep() -> ScriptStep? {
        state.withLock { $0.historyScript.isEmpty ? nil : $0.historyScript.removeFirst() }
    }

    /// Logs a Send Consumption Information call.
    func record(_ request: RecordedConsumptionRequest) {
        state.withLock { $0.consumption.append(request) }
    }

    /// Logs a Get Notification History call.
    func record(_ query: RecordedNotificationHistoryQuery) {
        state.withLock { $0.historyQueries.append(query) }
    }

    /// The Send Consumption Information calls so far, in arrival order.
    func consumptionRequests() -> [RecordedConsumptionRequest] {
        state.withLock { $0.consumption }
    }

    /// The Get Notification History calls so far, in arrival order.
    func historyQueries() -> [RecordedNotificationHistoryQuery] {
        state.withLock { $0.historyQueries }
    }

    /// The page from `offset` of `environment`'s notifications signed in [`start`, `end`), oldest first, with the
    /// offset of the next page when there is one.
    func historyPage(
        environment: String,
        start: Int64,
        end: Int64,
        offset: Int
    ) -> (page: [SentNotification], next: Int?) {
        let matching = sent().filter { $0.environment == environment && $0.signedDate >= start && $0.signedDate < end }
            .sorted { $0.signedDate < $1.signedDate }
        let from = min(offset, matching.count)
        let to = min(matching.count, from + Self.historyPageSize)
        return (Array(matching[from..<to]), to < matching.count ? to : nil)
    }
}
