import AsyncHTTPClient
import NIOCore

extension HTTPClient {
    /// The HTTP client every store shares, sized for `concurrency` requests to one host, with certificate
    /// verification on (the default).
    package static func makeForStores(concurrency: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(10)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, concurrency)
        configuration.decompression = .enabled(limit: .ratio(20))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
