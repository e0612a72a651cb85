import ArgumentParser
import ReceiptdCore

/// `--set trusted`; the help lists both levels.
extension TrustLevel: ExpressibleByArgument {}
