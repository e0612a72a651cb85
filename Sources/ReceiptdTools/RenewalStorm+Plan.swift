import FakeAppStore
import Foundation
import ReceiptdCore

extension RenewalStorm {
    /// What a source may use: the seeded database and both stores' stand-ins, running in this process.
    package struct Context: Sendable {
        /// The seeded database.
        package var connectionString: String
        /// The stand-in App Store (its chain signs the App Store's notifications; its Server API counts calls).
        package var appStore: AppStoreStandIn
        /// The stand-in Google Play.
        package var googlePlay: GooglePlayStandIn

        /// Creates one.
        package init(connectionString: String, appStore: AppStoreStandIn, googlePlay: GooglePlayStandIn) {
            self.connectionString = connectionString
            self.appStore = appStore
            self.googlePlay = googlePlay
        }
    }

    /// One request to the intake, prepared before the timing starts.
    package struct Request: Sendable {
        /// The body, as the store posts it.
        package var body: [UInt8]
        /// Headers beyond `Content-Type: application/json` and the proxy's `X-Forwarded-For`.
        package var headers: [String: String]

        /// Creates one.
        package init(body: [UInt8], headers: [String: String] = [:]) {
            self.body = body
            self.headers = headers
        }
    }

    /// One renewal: the new period a request announces.
    package struct Renewal: Sendable, Codable {
        /// The subscription (`iap.subscriptions.subscription_id`).
        package var subscriptionID: String
        /// The new period's ledger id (`iap.deliveries.transaction_id`); its order is `renewal:<transaction_id>`.
        package var transactionID: String
        /// The end of the subscription's latest paid period before the storm, in milliseconds since 1970: the new
        /// period's ledger row is the only one of the subscription that ends after it.
        package var previousPeriodEndMilliseconds: Int64

        /// Creates one.
        package init(subscriptionID: String, transactionID: String, previousPeriodEndMilliseconds: Int64) {
            self.subscriptionID = subscriptionID
            self.transactionID = transactionID
            self.previousPeriodEndMilliseconds = previousPeriodEndMilliseconds
        }

        private enum CodingKeys: String, CodingKey {
            case subscriptionID = "subscription_id"
            case transactionID = "transaction_id"
            case previousPeriodEndMilliseconds = "previous_end_ms"
        }
    }

    /// What a source prepared: the requests, in the order they are posted, and the renewals they announce.
    package struct Plan: Sendable {
        /// The requests.
        package var requests: [Request]
        /// The renewals, one per request.
        package var renewals: [Renewal]

        /// Creates one.
        package init(requests: [Request], renewals: [Renewal]) {
            self.requests = requests
            self.renewals = renewals
        }
    }

    /// How far a storm has settled.
    package struct Progress: Sendable, Equatable {
        /// New periods delivered, each a ledger row of its `renewal:<transaction_id>` order.
        package var settled: Int
        /// Subscriptions whose `entitled_until` moved past what it was before the storm.
        package var moved: Int
        /// Subscriptions of the storm with a re-read due now.
        package var rereadsDue: Int

        /// Creates one.
        package init(settled: Int, moved: Int, rereadsDue: Int) {
            self.settled = settled
            self.moved = moved
            self.rereadsDue = rereadsDue
        }

        /// Whether all of `renewals` have settled.
        package func complete(of renewals: Int) -> Bool {
            settled == renewals && moved == renewals && rereadsDue == 0
        }
    }
}
