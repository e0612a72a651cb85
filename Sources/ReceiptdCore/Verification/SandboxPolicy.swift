/// What a sandbox purchase (Apple's sandbox, a Google test purchase) may deliver (`RECEIPTD_SANDBOX`).
package enum SandboxPolicy: String, Sendable, CaseIterable {
    /// Sandbox purchases deliver like real ones: App Review tests production builds in the sandbox.
    case accept
    /// A sandbox purchase is `invalid`: for games that never want a tester's free purchase to count.
    case reject
}
