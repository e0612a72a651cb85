import FakeAppStore
import Foundation
import ReceiptdCore

/// What the console's browser tests find in the database: orders a daemon settled against the stand-in App Store,
/// an unclaimed payment, a stuck job, and a store error holding markup.
extension ConsoleBrowser {
    /// The player whose orders the support agent looks up.
    static let player = "player-7"
    /// player-7's order, paid by transaction ``paidTransaction``: verified, one attempt, one ledger row.
    static let paidOrder = "ord-paid"
    /// The transaction that paid ``paidOrder``.
    static let paidTransaction = "1001"
    /// player-7's order for gems whose receipt held only a shield: the shield is an unclaimed payment.
    static let lostOrder = "ord-lost-id"
    /// The unclaimed payment (a shield).
    static let unclaimedTransaction = "2002"
    /// player-7's shield order the payment was meant for: waiting, with no job.
    static let shieldOrder = "ord-shield"
    /// An order whose job has waited, due, for 15 minutes: `iap.stuck_jobs` reason `overdue`.
    static let stuckOrder = "ord-stuck"
    /// An order whose store error holds a script tag.
    static let scriptOrder = "ord-xss"
    /// The store error of ``scriptOrder``.
    static let scriptError = "<script>alert(1)</script>"

    /// Seeds the world: a daemon settles player-7's two receipts, then the stuck job and the store error are put in
    /// place with SQL.
    static func seed(_ f: Fixture) async throws {
        try await f.connection.execute("SELECT iap.create_order($1, $2, 'gems')", [paidOrder, player])
        try await f.enqueue(paidOrder, user: player, receipt: Receipts.paying(paidTransaction))
        try await f.connection.execute("SELECT iap.create_order($1, $2, 'gems')", [lostOrder, player])
        try await f.enqueue(
            lostOrder,
            user: player,
            receipt: SyntheticReceipt(inApp: [Receipts.purchase(unclaimedTransaction, product: "shield")]).encoded()
        )
        // Every unclaimed payment is recorded, however old.
        let settings = f.settings { $0.daemon.unclaimedSince = Date(timeIntervalSince1970: 0) }
        try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
        // Created after the settle: an open shield order of the same player would have been paid by the shield at
        // once (a second payment finds its order), leaving nothing unclaimed.
        try await f.connection.execute("SELECT iap.create_order($1, $2, 'shield')", [shieldOrder, player])

        let stuck = try await f.enqueue(stuckOrder, user: "player-8", receipt: Receipts.paying("3003"))
        try await f.setJob(stuck, state: "pending", secondsAgo: 900)

        let failed = try await f.enqueue(scriptOrder, user: "player-9", receipt: Receipts.paying("4004"))
        try await f.addAttempt(
            job: failed,
            number: 1,
            result: "rejected",
            appleStatus: 21199,
            httpStatus: 200,
            error: scriptError,
            secondsAgo: 60
        )
        try await f.setJob(failed, state: "failed", secondsAgo: 60, error: scriptError)
        try await f.setOutcome(scriptOrder, "failed", secondsAgo: 60)
    }
}
