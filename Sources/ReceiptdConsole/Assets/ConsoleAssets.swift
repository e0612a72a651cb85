import Hummingbird

/// The stylesheet and the script, compiled into the binary: nothing loads from elsewhere.
package enum ConsoleAssets {
    /// Where the stylesheet is served.
    package static let stylesheetPath = "/assets/console.css"
    /// Where the script is served.
    package static let scriptPath = "/assets/console.js"

    /// The stylesheet as an answer.
    package static func stylesheet() -> Response {
        answer(PackageResources.console_css, contentType: "text/css; charset=utf-8")
    }

    /// The script as an answer.
    package static func script() -> Response {
        answer(PackageResources.console_js, contentType: "text/javascript; charset=utf-8")
    }

    private static func answer(_ bytes: [UInt8], contentType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
