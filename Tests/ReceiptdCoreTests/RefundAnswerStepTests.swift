import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import ReceiptdCore

/// At most one extra call per refund answer (issue #47, item 6), without I/O: a call that got no answer earns one more
/// call, and that call ends the request whatever it brings.
@Suite struct RefundAnswerStepTests {
    @Test func aFirstCallThatGotNoAnswerIsSentOnceMoreMarkedPossiblySent() {
        #expect(
            RefundAnswerStep.after(.unanswered("timeout"), earlierCallPossiblySent: false)
                == .retry("timeout", notBefore: nil, possiblySent: true)
        )
    }

    @Test func theOneMoreCallEndsUnconfirmedUnlessTheStoreTakesOrRefusesIt() {
        #expect(
            RefundAnswerStep.after(.unanswered("timeout"), earlierCallPossiblySent: true)
                == .unconfirmed("no answer to the call nor to the one more call: timeout")
        )
        if case .unconfirmed = RefundAnswerStep.after(.retry("HTTP 503", notBefore: nil), earlierCallPossiblySent: true)
        {
        } else {
            Issue.record("a transient failure after a possibly sent call must not call the store a third time")
        }
        #expect(RefundAnswerStep.after(.sent, earlierCallPossiblySent: true) == .answered)
        #expect(RefundAnswerStep.after(.refused("400"), earlierCallPossiblySent: true) == .failed("400"))
    }

    @Test func definiteTransientFailuresAndPostponementsAreRetriedAsBefore() {
        #expect(
            RefundAnswerStep.after(.retry("HTTP 503", notBefore: .seconds(5)), earlierCallPossiblySent: false)
                == .retry("HTTP 503", notBefore: .seconds(5), possiblySent: false)
        )
        #expect(RefundAnswerStep.after(.postpone(.seconds(2)), earlierCallPossiblySent: true) == .postpone(.seconds(2)))
    }

    @Test func onlyAFailureToConnectProvesARequestNeverLeft() {
        #expect(!StoreCallFailure.mayHaveReachedStore(HTTPClientError.connectTimeout))
        #expect(!StoreCallFailure.mayHaveReachedStore(ChannelError.connectTimeout(.seconds(1))))
        #expect(!StoreCallFailure.mayHaveReachedStore(IOError(errnoCode: ECONNREFUSED, reason: "connect")))
        #expect(StoreCallFailure.mayHaveReachedStore(HTTPClientError.deadlineExceeded))
        #expect(StoreCallFailure.mayHaveReachedStore(HTTPClientError.remoteConnectionClosed))
        #expect(StoreCallFailure.mayHaveReachedStore(IOError(errnoCode: ECONNRESET, reason: "read")))
    }
}
