import FakeAppStore
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stand-in started on an ephemeral port for one test, and plain HTTP calls to it.
struct StandInClient {
    /// An answer as the client saw it.
    struct Answer {
        var status: Int
        var headers: [AnyHashable: Any]
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The header's value, whatever its case.
        func header(_ name: String) -> String? {
            headers.first { ($0.key as? String)?.lowercased() == name.lowercased() }?.value as? String
        }

        /// The body as a JSON object (empty when it is not one).
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }
    }

    let standIn: AppStoreStandIn
    let base: String

    /// Starts `standIn`, runs `body` against it, and shuts it down whatever happens.
    static func with<T>(
        _ configuration: AppStoreStandIn.Configuration = .init(),
        _ body: (StandInClient) async throws -> T
    ) async throws -> T {
        let standIn = AppStoreStandIn(configuration: configuration)
        let port = try await standIn.start()
        do {
            let result = try await body(StandInClient(standIn: standIn, base: "http://127.0.0.1:\(port)"))
            try await standIn.shutdown()
            return result
        } catch {
            try await standIn.shutdown()
            throw error
        }
    }

    /// `GET {base}{path}` with an optional `Authorization: Bearer …`.
    func get(_ url: String, bearer: String?) async throws -> Answer {
        var request = URLRequest(url: URL(string: url)!)
        if let bearer {
            request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        }
        return try await send(request)
    }

    /// `POST {base}{path}` with a JSON body.
    func post(_ path: String, json: Data) async throws -> Answer {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = "POST"
        request.httpBody = json
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> Answer {
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Answer(status: http.statusCode, headers: http.allHeaderFields, body: data)
    }
}
