import AsyncHTTPClient
import NIOCore

extension HTTPClient {
    /// An HTTP client sized for `concurrency` requests to one Apple host, with certificate verification on (the default).
    package static func makeForApple(concurrency: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(10)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, concurrency)
        configuration.decompression = .enabled(limit: .ratio(20))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
