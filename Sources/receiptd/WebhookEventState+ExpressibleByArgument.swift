import ArgumentParser
import ReceiptdCore

/// `--state failed`; the help lists every state.
extension WebhookEventState: ExpressibleByArgument {}
