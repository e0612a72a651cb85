import AsyncHTTPClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Whether a request that failed without an answer may still have reached the store: only a failure to connect
/// proves it never left. A call that changes something at the store (a refund answer) counts as possibly sent
/// otherwise (a timeout, a connection reset after the request was written).
enum StoreCallFailure {
    /// False only when `error` says the connection was never made.
    static func mayHaveReachedStore(_ error: any Error) -> Bool {
        switch error {
        case is NIOConnectionError: return false
        case let error as ChannelError:
            if case .connectTimeout = error { return false }
            return true
        case let error as HTTPClientError where error == .connectTimeout: return false
        case let error as IOError:
            return ![ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode)
        default: return true
        }
    }
}
