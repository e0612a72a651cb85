import FakeAppStore
import Foundation

/// The sample orders `receiptd demo` enqueues: one for each outcome and each path through the daemon.
struct DemoScenario {
    /// One `iap.enqueue_receipt` call.
    struct Enqueue {
        var orderID: String
        var userID: String
        var productID: String
        var quantity: Int
        var receipt: SyntheticReceipt
        /// Seconds to wait before this call (to replace a receipt while its first one is in flight).
        var after: Double = 0
    }

    /// One `iap.create_order` call, the game server's checkout before the client pays.
    struct Checkout {
        var orderID: String
        var userID: String
        var productID: String
    }

    /// The outcome each order must end with (`-` for none).
    static let expectedOutcomes: [String: String] = [
        "demo-full": "full", "demo-partial": "partial", "demo-no-in-app": "no_in_app", "demo-refunded": "unmatched",
        "demo-forged": "invalid", "demo-sandbox": "full", "demo-outage": "full", "demo-replay": "unmatched",
        "demo-merged-a": "full", "demo-merged-b": "full", "demo-replaced": "full", "demo-late": "full",
        "demo-checkout": "full", "demo-closed": "-", "demo-unclaimed": "full", "demo-trusted": "full",
    ]

    /// The status each order must end with, once the demo granted `granted`.
    static let expectedStatuses: [String: String] = [
        "demo-checkout": "finished", "demo-sk2-signed": "finished", "demo-closed": "closed", "demo-late": "verified",
        "demo-no-in-app": "pending", "demo-gp-rtdn": "finished", "demo-trusted": "finished",
    ]

    /// Orders created at checkout, before their receipts.
    static let checkouts = [
        Checkout(orderID: "demo-checkout", userID: "judy", productID: "com.example.gems100"),
        Checkout(orderID: "demo-closed", userID: "ken", productID: "com.example.gems100"),
        Checkout(orderID: "demo-unclaimed", userID: "lena", productID: "com.example.gems100"),
    ]
    /// Checked-out orders the game closes unpaid.
    static let closed = ["demo-closed"]
    /// Orders whose goods the game confirms granting once they are delivered.
    static let granted = ["demo-checkout", "demo-sk2-signed"]

    let calls: [Enqueue]

    init(now: Date = Date()) {
        let ms = String(Int64(now.timeIntervalSince1970 * 1000))
        func purchase(
            _ id: String,
            _ product: String,
            refunded: Bool = false,
            hoursAgo: Double = 0
        ) -> SyntheticTransaction {
            SyntheticTransaction(
                transactionID: id,
                productID: product,
                purchaseDateMilliseconds: String(Int64((now.timeIntervalSince1970 - hoursAgo * 3600) * 1000)),
                cancellationDateMilliseconds: refunded ? ms : nil
            )
        }
        let gems = "com.example.gems100"
        calls = [
            Enqueue(
                orderID: "demo-full",
                userID: "alice",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [purchase("1000000001", gems)])
            ),
            Enqueue(
                orderID: "demo-partial",
                userID: "bob",
                productID: gems,
                quantity: 2,
                receipt: SyntheticReceipt(inApp: [purchase("1000000002", gems)])
            ),
            Enqueue(
                orderID: "demo-no-in-app",
                userID: "carol",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [])
            ),
            Enqueue(
                orderID: "demo-refunded",
                userID: "dave",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [purchase("1000000003", gems, refunded: true)])
            ),
            Enqueue(
                orderID: "demo-forged",
                userID: "erin",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(status: 21003)
            ),
            Enqueue(
                orderID: "demo-sandbox",
                userID: "frank",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(environment: "Sandbox", inApp: [purchase("1000000004", gems)])
            ),
            Enqueue(
                orderID: "demo-outage",
                userID: "grace",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(
                    inApp: [purchase("1000000005", gems)],
                    script: [.httpStatus(503), .appleStatus(21005)]
                )
            ),
            Enqueue(
                orderID: "demo-replay",
                userID: "mallory",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [purchase("1000000001", gems)]),
                after: 1
            ),
            Enqueue(
                orderID: "demo-merged-a",
                userID: "heidi",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [
                    purchase("1000000006", gems), purchase("1000000007", "com.example.shield"),
                ])
            ),
            Enqueue(
                orderID: "demo-merged-b",
                userID: "heidi",
                productID: "com.example.shield",
                quantity: 1,
                receipt: SyntheticReceipt(
                    inApp: [purchase("1000000007", "com.example.shield")],
                    delayMilliseconds: 1500
                )
            ),
            Enqueue(
                orderID: "demo-replaced",
                userID: "ivan",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [purchase("1000000008", gems)], delayMilliseconds: 5000)
            ),
            Enqueue(
                orderID: "demo-replaced",
                userID: "ivan",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [purchase("1000000009", gems)]),
                after: 0.5
            ),
            // The app crashed after payment and sends the receipt 8 hours later, at its next start.
            Enqueue(
                orderID: "demo-late",
                userID: "judy",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [purchase("1000000010", gems, hoursAgo: 8)])
            ),
            Enqueue(
                orderID: "demo-checkout",
                userID: "judy",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [purchase("1000000011", gems)])
            ),
            // The receipt also carries a shield nobody ordered: an unclaimed payment for an operator to assign.
            Enqueue(
                orderID: "demo-unclaimed",
                userID: "lena",
                productID: gems,
                quantity: 1,
                receipt: SyntheticReceipt(inApp: [
                    purchase("1000000012", gems), purchase("1000000013", "com.example.shield"),
                ])
            ),
        ]
    }
}
