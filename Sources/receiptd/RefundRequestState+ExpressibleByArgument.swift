import ArgumentParser
import ReceiptdCore

/// `--state waiting`; the help lists every state.
extension RefundRequestState: ExpressibleByArgument {}

/// `--preference grant_prorated`; the help lists every preference.
extension RefundPreference: ExpressibleByArgument {}
