import _CryptoExtras
import Foundation
import NIOCore
import NIOHTTP1

/// Serves one connection of the stand-in Google Play.
final class GooglePlayHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What to write back.
    struct Answer {
        var status: Int
        var body: String = ""
        var headers: [(String, String)] = []
        var delayMilliseconds = 0
        var reset = false
    }

    private let standIn: GooglePlayStandIn
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(standIn: GooglePlayStandIn) {
        self.standIn = standIn
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            self.head = nil
            let answer = route(head, body: String(buffer: body))
            if answer.reset {
                context.close(promise: nil)
            } else if answer.delayMilliseconds > 0 {
                context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(answer.delayMilliseconds))) {
                    self.write(answer, for: head, context: context)
                }
            } else {
                write(answer, for: head, context: context)
            }
        }
    }

    private func write(_ answer: Answer, for head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", String(answer.body.utf8.count))])
        for (name, value) in answer.headers { headers.add(name: name, value: value) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .init(statusCode: answer.status),
                                                             headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private static let applications = "/androidpublisher/v3/applications/"

    private func route(_ head: HTTPRequestHead, body: String) -> Answer {
        let parts = head.uri.split(separator: "?", maxSplits: 1)
        let path = String(parts.first ?? "")
        let query = parts.count > 1 ? Self.form(String(parts[1])) : [:]
        switch (head.method, path) {
        case (.POST, "/token"):
            return tokenGrant(Self.form(body))
        case (.POST, "/fake/void"):
            return fakeVoid(body)
        case (.GET, "/healthz"):
            return Answer(status: 200, body: "{}")
        default:
            break
        }
        guard path.hasPrefix(Self.applications) else { return Self.error(404, "Not found.", "NOT_FOUND") }
        let segments = path.dropFirst(Self.applications.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let bearerFailure = standIn.ledger.bearerFailure(head.headers.first(name: "Authorization"))
        if segments.count == 3, segments[1] == "purchases", segments[2] == "voidedpurchases", head.method == .GET {
            if let bearerFailure { return Self.unauthenticated(bearerFailure) }
            guard segments[0] == standIn.packageName else { return Self.forbidden() }
            return voided(query)
        }
        guard segments.count == 6, segments[1] == "purchases", segments[2] == "products", segments[4] == "tokens" else {
            return Self.error(404, "Not found.", "NOT_FOUND")
        }
        let (package, product) = (segments[0], Self.decoded(segments[3]))
        var token = Self.decoded(segments[5])
        var action: RecordedGoogleFinalization.Action?
        if head.method == .POST, let colon = token.lastIndex(of: ":") {
            action = RecordedGoogleFinalization.Action(rawValue: String(token[token.index(after: colon)...]))
            token = String(token[..<colon])
        }
        if let bearerFailure {
            if action == nil {
                standIn.ledger.record(RecordedGooglePurchaseQuery(token: token, productID: product, httpStatus: 401,
                                                                  bearerFailure: bearerFailure, receivedAt: Date()))
            }
            return Self.unauthenticated(bearerFailure)
        }
        guard package == standIn.packageName else { return Self.forbidden() }
        if let action { return finalize(token, product: product, action: action) }
        guard head.method == .GET else { return Self.error(404, "Not found.", "NOT_FOUND") }
        let answer = purchase(token, product: product)
        standIn.ledger.record(RecordedGooglePurchaseQuery(token: token, productID: product, httpStatus: answer.status, bearerFailure: nil,
                                                          receivedAt: Date()))
        return answer
    }

    /// `purchases.products.get`.
    private func purchase(_ token: String, product: String) -> Answer {
        guard let spec = SyntheticPurchaseToken(token: token) else {
            return Self.error(404, "The purchase token was not found.", "NOT_FOUND")
        }
        let call = standIn.ledger.countLookup(token)
        if let steps = spec.script, call < steps.count {
            let step = steps[call]
            if step.reset == true { return Answer(status: 0, reset: true) }
            if let status = step.http {
                var answer = Self.status(status)
                if let retryAfter = step.retryAfter { answer.headers.append(("Retry-After", retryAfter)) }
                answer.delayMilliseconds = step.delayMilliseconds ?? 0
                return answer
            }
        }
        if let expected = spec.productID, expected != product {
            return Self.error(400, "Invalid Value", "INVALID_ARGUMENT")
        }
        let state = call < (spec.pendingCalls ?? 0) ? 2 : (spec.state ?? 0)
        var fields: [String: Any] = [
            "kind": "androidpublisher#productPurchase", "purchaseTimeMillis": String(spec.purchaseTimeMilliseconds ?? 0),
            "purchaseState": state, "consumptionState": standIn.ledger.isConsumed(token) ? 1 : 0, "developerPayload": "",
            "acknowledgementState": (spec.acknowledged == true || standIn.ledger.isAcknowledged(token)) ? 1 : 0,
            "productId": product, "regionCode": "US",
        ]
        if let orderID = spec.orderID { fields["orderId"] = orderID }
        if let quantity = spec.quantity { fields["quantity"] = quantity }
        if let account = spec.accountID { fields["obfuscatedExternalAccountId"] = account }
        if spec.testPurchase == true { fields["purchaseType"] = 0 }
        return Answer(status: 200, body: Self.json(fields))
    }

    /// `:acknowledge` and `:consume`.
    private func finalize(_ token: String, product: String, action: RecordedGoogleFinalization.Action) -> Answer {
        let spec = SyntheticPurchaseToken(token: token)
        let status = standIn.ledger.finalize(token, productID: product, action: action) { scripted in
            if let scripted { return scripted }
            guard let spec else { return 404 }
            return (spec.state ?? 0) == 0 ? 200 : 400
        }
        switch status {
        case 200: return Answer(status: 200, body: "{}")
        case 400: return Self.error(400, "The purchase is not in a valid state to perform the desired operation.", "FAILED_PRECONDITION")
        default: return Self.status(status)
        }
    }

    /// `purchases.voidedpurchases.list`, oldest first from `startTime`, paged by an offset token.
    private func voided(_ query: [String: String]) -> Answer {
        let start = query["startTime"].flatMap { Int64($0) } ?? 0
        let offset = query["token"].flatMap { Int($0) } ?? 0
        let size = min(query["maxResults"].flatMap { Int($0) } ?? 1000, standIn.configuration.voidedPageSize)
        let all = standIn.ledger.voided(since: start)
        let page = all.dropFirst(offset).prefix(size)
        var fields: [String: Any] = ["voidedPurchases": page.map { entry -> [String: Any] in
            var item: [String: Any] = [
                "kind": "androidpublisher#voidedPurchase", "purchaseToken": entry.token, "purchaseTimeMillis": String(entry.purchaseMilliseconds),
                "voidedTimeMillis": String(entry.voidedMilliseconds), "voidedSource": 0, "voidedReason": entry.reason,
            ]
            if let orderID = entry.orderID { item["orderId"] = orderID }
            return item
        }]
        if offset + page.count < all.count { fields["tokenPagination"] = ["nextPageToken": String(offset + page.count)] }
        return Answer(status: 200, body: Self.json(fields))
    }

    /// `POST /fake/void` `{"token", "order_id", "reason"}`.
    private func fakeVoid(_ body: String) -> Answer {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any],
              let token = fields["token"] as? String else { return Self.error(400, "Invalid Value", "INVALID_ARGUMENT") }
        standIn.void(token: token, orderID: fields["order_id"] as? String, reason: (fields["reason"] as? Int) ?? 1)
        return Answer(status: 204)
    }

    /// The OAuth 2.0 JWT bearer grant: the assertion must be signed by the service account, for this endpoint.
    private func tokenGrant(_ form: [String: String]) -> Answer {
        let failure: String? = {
            guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else { return "unsupported grant_type" }
            guard let assertion = form["assertion"] else { return "no assertion" }
            return assertionFailure(assertion)
        }()
        standIn.ledger.record(RecordedGoogleTokenRequest(accepted: failure == nil, failure: failure, receivedAt: Date()))
        if let failure {
            return Answer(status: 400, body: Self.json(["error": "invalid_grant", "error_description": failure]))
        }
        let lifetime = standIn.configuration.accessTokenLifetimeSeconds
        let token = standIn.ledger.issueAccessToken(lifetime: TimeInterval(lifetime))
        return Answer(status: 200, body: Self.json(["access_token": token, "expires_in": lifetime, "token_type": "Bearer"]))
    }

    private func assertionFailure(_ assertion: String) -> String? {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
              let signatureData = Base64URL.decode(parts[2]),
              let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any] else { return "not a JWT" }
        guard header["alg"] as? String == "RS256" else { return "alg is not RS256" }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard standIn.serviceAccount.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signatureData), for: signed,
                                                                padding: .insecurePKCS1v1_5) else { return "bad signature" }
        guard claims["iss"] as? String == standIn.serviceAccount.clientEmail else { return "iss is not the service account" }
        guard (claims["scope"] as? String)?.split(separator: " ").contains("https://www.googleapis.com/auth/androidpublisher") == true else {
            return "scope lacks androidpublisher"
        }
        guard claims["aud"] as? String == standIn.tokenURL else { return "aud is not the token endpoint" }
        let now = Date().timeIntervalSince1970
        guard let issued = (claims["iat"] as? NSNumber)?.doubleValue, let expires = (claims["exp"] as? NSNumber)?.doubleValue else {
            return "iat or exp missing"
        }
        guard issued <= now + 60 else { return "iat in the future" }
        guard expires > now else { return "expired" }
        guard expires - issued <= 3600 else { return "exp more than an hour after iat" }
        return nil
    }

    private static func status(_ status: Int) -> Answer {
        switch status {
        case 400: error(400, "Invalid Value", "INVALID_ARGUMENT")
        case 401: error(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED")
        case 403: forbidden()
        case 404: error(404, "The purchase token was not found.", "NOT_FOUND")
        case 410: error(410, "The purchase token is no longer valid.", "GONE")
        case 429: error(429, "Quota exceeded.", "RESOURCE_EXHAUSTED")
        default: error(status, "Backend error.", "UNAVAILABLE")
        }
    }

    private static func unauthenticated(_ reason: String) -> Answer {
        error(401, "Request had invalid authentication credentials (\(reason)).", "UNAUTHENTICATED")
    }

    private static func forbidden() -> Answer {
        error(403, "The current user has insufficient permissions to perform the requested operation.", "PERMISSION_DENIED")
    }

    private static func error(_ code: Int, _ message: String, _ status: String) -> Answer {
        Answer(status: code, body: json(["error": ["code": code, "message": message, "status": status]]))
    }

    private static func json(_ object: Any) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    private static func decoded(_ segment: String) -> String { segment.removingPercentEncoding ?? segment }

    /// `a=1&b=2`, percent-decoded (`+` as space).
    private static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}
