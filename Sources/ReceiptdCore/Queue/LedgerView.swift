import Foundation

/// What a batch's plans know of the orders and the ledger, read under lock at the start of the settle and
/// updated as each plan is made, so that a later answer in the batch sees what earlier ones delivered.
struct LedgerView {
    private var orders: [String: (user: String, snapshot: OrderSnapshot)] = [:]
    private var delivered: Set<String>
    private var owners: [String: String]
    /// Orders that an earlier answer of the batch completed through a merged payment.
    private(set) var completed: Set<String> = []

    init(orders: [(user: String, snapshot: OrderSnapshot)], delivered: Set<String>, owners: [String: String]) {
        for order in orders { self.orders[order.snapshot.orderID] = order }
        self.delivered = delivered
        self.owners = owners
    }

    /// Plans one answer against what the batch knows so far, and takes its deliveries in; `nil` when its order
    /// was not among the rows read.
    mutating func plan(_ answer: VerifiedAnswer, planner: DeliveryPlanner) -> DeliveryPlan? {
        guard let own = orders[answer.job.order.orderID]?.snapshot else { return nil }
        let others = orders.values.filter { $0.user == answer.job.userID && $0.snapshot.orderID != own.orderID }.map(
            \.snapshot
        )
        let plan = planner.plan(
            answer.transactions,
            for: answer.job.userID,
            order: own,
            otherOpenOrders: others,
            alreadyDelivered: delivered,
            firstOwners: owners
        )
        for result in plan.orderResults {
            orders[result.orderID]?.snapshot.deliveredQuantity = result.deliveredQuantity
        }
        delivered.formUnion(plan.deliveries.map(\.transactionID))
        for delivery in plan.newOwners { owners[delivery.originalTransactionID] = answer.job.userID }
        completed.formUnion(plan.ordersCompletedElsewhere)
        return plan
    }

    /// Whether the ledger, or a plan of the batch so far, delivered `transactionID`.
    func isDelivered(_ transactionID: String) -> Bool { delivered.contains(transactionID) }

    /// The product of an order the batch read.
    func productID(of orderID: String) -> String { orders[orderID]?.snapshot.productID ?? "" }

    /// The app account token of an order the batch read, if it has one.
    func appAccountToken(of orderID: String) -> UUID? { orders[orderID]?.snapshot.appAccountToken }
}
