/// What an operator did, as `iap.operator_actions.action` records it.
package enum OperatorAction: String, Sendable, CaseIterable, Codable {
    /// `iap.retry_order`.
    case retry
    /// `iap.cancel_order`.
    case cancel
    /// `iap.assign_payment`.
    case assign
    /// `iap.set_trust`.
    case setTrust = "set_trust"
    /// `iap.replay_webhook_events`, one row per event.
    case replayWebhook = "replay_webhook"
    /// `iap.enable_webhooks`.
    case enableWebhooks = "enable_webhooks"
    /// `iap.operator_answer_refund`.
    case answerRefund = "answer_refund"
}
