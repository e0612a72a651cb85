/// What a line of the order timeline is about (the console's `li[data-kind]`).
package enum TimelineEventKind: String, Sendable, Codable, CaseIterable {
    /// The order was created (checkout, or its first receipt).
    case checkout
    /// A job (an input: a receipt, a transaction, a purchase token) was enqueued.
    case job
    /// A daemon asked the store about a job.
    case attempt
    /// A ledger row paid the order.
    case delivery
    /// The game confirmed granting a ledger row, or the order had a provisional grant.
    case grant
    /// The store sent a notification about one of the order's transactions.
    case notification
    /// The store revoked a ledger row (a refund, a void).
    case revocation
    /// A webhook event about the order was written.
    case webhook
    /// An operator acted on the order (from the CLI or the console).
    case action
}
