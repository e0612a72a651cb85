import ArgumentParser
import ReceiptdCore

/// `--state pending`; the help lists every state.
extension JobState: ExpressibleByArgument {}
