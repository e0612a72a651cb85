import ArgumentParser
import ReceiptdCore

/// `--store apple`; the help lists both stores.
extension Store: ExpressibleByArgument {}
