import FakeAppStore
import Foundation

/// The webhooks of `receiptd demo`: the events `iap.webhook_events` ended with and every request the stand-in
/// receiver took.
package struct DemoWebhooks: Sendable {
    /// One event as `iap.webhook_events` ends with it.
    package struct Event: Sendable {
        /// `id` (the `webhook-id`), `type`, `state`.
        package var id, type, state: String
        /// `order_id`; nil for none.
        package var orderID: String?
        /// `attempts`: sends, the last one delivered.
        package var attempts: Int
        /// The body's `data.provisional` (an `order.verified` of a provisional grant).
        package var provisional: Bool
    }

    /// The receiver's URL.
    package var url: String
    /// Every event, in the order written (`seq`).
    package var events: [Event]
    /// Every request the receiver took, in arrival order.
    package var received: [ReceivedWebhook]

    /// What a deduplicating receiver acted on: verified, answered 2xx, first per id.
    package var delivered: [ReceivedWebhook] {
        received.filter { $0.verified && !$0.duplicate && ($0.status.map { (200..<300).contains($0) } ?? false) }
    }

    /// Whether every request carrying `id` verified.
    package func verified(_ id: String) -> Bool {
        received.allSatisfy { $0.id != id || $0.verified }
    }

    /// The receiver's answers to the requests carrying `id`, in order (`-` for none).
    package func answers(to id: String) -> [String] {
        received.filter { $0.id == id }.map { $0.status.map(String.init) ?? "-" }
    }

    /// Events per type, the most first.
    package var countsByType: [(type: String, count: Int)] {
        Dictionary(grouping: events, by: \.type).map { (type: $0.key, count: $0.value.count) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.type < $1.type }
    }

    /// What is wrong: an event not delivered, not received, refused by the receiver's checks, or acted on twice.
    package var problems: [String] {
        var problems: [String] = []
        let acted = Dictionary(grouping: received.filter { $0.verified && ($0.status ?? 0) / 100 == 2 }, by: \.id)
        for event in events {
            if event.state != "delivered" { problems.append("\(event.id) (\(event.type)) is \(event.state)") }
            if !verified(event.id) { problems.append("\(event.id) (\(event.type)) failed the receiver's checks") }
            let times = acted[event.id]?.count ?? 0
            if times != 1 { problems.append("\(event.id) (\(event.type)) taken \(times) times") }
        }
        return problems
    }
}
