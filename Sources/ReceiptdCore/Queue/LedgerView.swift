import Foundation

/// What a batch's plans know of the orders and the ledger, read under lock at the start of the settle and
/// updated as each plan is made, so that a later answer in the batch sees what earlier ones delivered.
struct LedgerView {
    private var orders: [String: (user: String, snapshot: OrderSnapshot)] = [:]
    /// Delivered transactions, each with the order it paid.
    private var delivered: [String: String]
    /// The same transactions, as the planner takes them.
    private var deliveredIDs: Set<String>
    private var owners: [String: String]
    /// The players whose orders carry each app account token of the batch's purchases never delivered.
    var tokenOwners: [UUID: Set<String>] = [:]
    /// Orders that an earlier answer of the batch completed through a merged payment.
    private(set) var completed: Set<String> = []

    init(orders: [(user: String, snapshot: OrderSnapshot)], delivered: [String: String], owners: [String: String]) {
        for order in orders { self.orders[order.snapshot.orderID] = order }
        self.delivered = delivered
        deliveredIDs = Set(delivered.keys)
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
            alreadyDelivered: deliveredIDs,
            firstOwners: owners,
            tokenOwners: tokenOwners
        )
        for renewal in plan.renewalOrders {
            orders[renewal.orderID] = (
                answer.job.userID,
                OrderSnapshot(
                    orderID: renewal.orderID,
                    productID: renewal.productID,
                    quantity: 1,
                    createdAtMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)
                )
            )
        }
        for result in plan.orderResults {
            orders[result.orderID]?.snapshot.deliveredQuantity = result.deliveredQuantity
        }
        for delivery in plan.deliveries {
            delivered[delivery.transactionID] = delivery.orderID
            deliveredIDs.insert(delivery.transactionID)
        }
        for delivery in plan.newOwners { owners[delivery.originalTransactionID] = answer.job.userID }
        completed.formUnion(plan.ordersCompletedElsewhere)
        return plan
    }

    /// Whether the ledger, or a plan of the batch so far, delivered `transactionID`.
    func isDelivered(_ transactionID: String) -> Bool { delivered[transactionID] != nil }

    /// The replay `answer` is, if any: an input that is by itself one transaction (a signed transaction or
    /// transaction id, a purchase token), already delivered to another order. A receipt lists the player's
    /// earlier purchases as a matter of course: it is never one. Nor is a subscription's period presented again (an
    /// entitlement a client restores, on its buyer's account or another).
    func replay(in answer: VerifiedAnswer) -> DeliveryPlan.Replay? {
        guard answer.job.kind != .receipt, answer.transactions.count == 1, let transaction = answer.transactions.first,
            transaction.subscription == nil,
            let order = delivered[transaction.transactionID], order != answer.job.order.orderID
        else { return nil }
        return DeliveryPlan.Replay(transactionID: transaction.transactionID, orderID: order)
    }

    /// The product of an order the batch read.
    func productID(of orderID: String) -> String { orders[orderID]?.snapshot.productID ?? "" }

    /// The app account token of an order the batch read, if it has one.
    func appAccountToken(of orderID: String) -> UUID? { orders[orderID]?.snapshot.appAccountToken }
}
