import FakeAppStore
import Foundation
import Testing

/// Get Transaction History v2 on the stand-in: pages with an opaque revision, one environment per answer,
/// the bearer check, and Apple's errors for an unknown id or a revision it did not make.
@Suite struct TransactionHistoryTests {
    let key = ServerAPITestKey.generate()

    private func historyURL(
        _ standIn: AppStoreStandIn,
        sandbox: Bool = false,
        _ id: String,
        revision: String? = nil
    ) -> String {
        (sandbox ? standIn.serverAPISandboxURL : standIn.serverAPIURL) + "/inApps/v2/history/" + id
            + (revision.map { "?revision=" + $0 } ?? "")
    }

    /// The transaction ids of a page's signed transactions.
    private func ids(_ answer: StandInClient.Answer) throws -> [String] {
        try (answer.json["signedTransactions"] as? [String] ?? []).map { jws in
            try JSONDecoder().decode(SignedTransactionPayload.self, from: try CompactJWS(jws).payload).transactionId
        }
    }

    @Test func aHistoryIsAnsweredAPageAtATimeInItsEnvironment() async throws {
        try await StandInClient.with(.init(serverAPIKey: key.publicKey, serverAPIHistoryPageSize: 2)) { client in
            let standIn = client.standIn
            standIn.register(
                history: ["h1", "h2", "h3"].map { SignedTransactionPayload(transactionId: $0, productId: "gems") }
                    + [SignedTransactionPayload(transactionId: "h4", productId: "gems", environment: "Sandbox")]
            )
            let first = try await client.get(historyURL(standIn, "h3"), bearer: key.bearerToken())
            #expect(
                first.status == 200 && first.json["hasMore"] as? Bool == true
                    && first.json["environment"] as? String == "Production"
            )
            #expect(try ids(first) == ["h1", "h2"])
            let revision = try #require(first.json["revision"] as? String)
            let second = try await client.get(historyURL(standIn, "h3", revision: revision), bearer: key.bearerToken())
            #expect(second.status == 200 && second.json["hasMore"] as? Bool == false)
            #expect(try ids(second) == ["h3"])
            let sandbox = try await client.get(historyURL(standIn, sandbox: true, "h1"), bearer: key.bearerToken())
            #expect(try ids(sandbox) == ["h4"] && sandbox.json["environment"] as? String == "Sandbox")

            let foreign = try await client.get(
                historyURL(standIn, "h1", revision: "bm90LW91cnM"),
                bearer: key.bearerToken()
            )
            #expect(foreign.status == 400 && foreign.json["errorCode"] as? Int == 4_000_005)
            let unknown = try await client.get(historyURL(standIn, "nope"), bearer: key.bearerToken())
            #expect(unknown.status == 404 && unknown.json["errorCode"] as? Int == 4_040_010)
            let unsigned = try await client.get(historyURL(standIn, "h1"), bearer: nil)
            #expect(unsigned.status == 401)

            let records = standIn.recordedServerAPIRequests()
            #expect(records.allSatisfy { $0.endpoint == .transactionHistory })
            #expect(records.map(\.revision) == [nil, revision, nil, "bm90LW91cnM", nil, nil])
        }
    }
}
