/// The console's navigation: each page belongs to one section, which the header marks as current.
package enum ConsoleSection: String, Sendable, CaseIterable {
    case overview, unclaimed, stuck, notifications, refunds, webhooks, search

    /// The section's link in the header.
    package var path: String {
        switch self {
        case .overview: "/"
        case .search: "/search"
        default: "/\(rawValue)"
        }
    }

    /// The link's text.
    package var title: String {
        switch self {
        case .overview: "Overview"
        case .unclaimed: "Unclaimed payments"
        case .stuck: "Stuck"
        case .notifications: "Notifications"
        case .refunds: "Refunds"
        case .webhooks: "Webhooks"
        case .search: "Search"
        }
    }

    /// The sections the header links to, in order.
    package static let navigation: [ConsoleSection] = [
        .overview, .unclaimed, .stuck, .notifications, .refunds, .webhooks,
    ]
}
