import Foundation
import ReceiptdTestKit
import Testing

/// The WebDriver client against a page of our own (``TestPageServer``): chromedriver starts, a headless chromium
/// navigates, finds, types, clicks, reads cookies and takes screenshots, and nothing of either is left running.
@Suite(.serialized, .enabled(if: BrowserAvailability.shouldRun, BrowserAvailability.skipped))
struct WebDriverClientTests {
    /// Runs `body` with a browser on a fresh test page server.
    private func withBrowser(
        _ body: (WebDriverSession, TestPageServer, ChromeDriver) async throws -> Void
    )
        async throws
    {
        try BrowserAvailability.require()
        let server = try await TestPageServer.start()
        do {
            try await ChromeDriver.with { driver in
                try await driver.withSession { session in try await body(session, server, driver) }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func navigatesFindsTypesAndClicks() async throws {
        try await withBrowser { session, server, _ in
            try await session.navigate(to: server.baseURL + "/start")
            #expect(try await session.title() == "Test page")
            #expect(try await session.currentURL() == server.baseURL + "/start")
            #expect(try await session.findElement(css: "#uri").text() == "/start")
            let items = try await session.findElements(css: "#items li")
            #expect(items.count == 3)
            // Text as the user reads it: the entities decoded.
            #expect(try await items.last?.text() == "<three>")
            #expect(try await session.findElements(css: "#nothing").isEmpty)
            let missing = await #expect(throws: WebDriverError.self) { try await session.findElement(css: "#nothing") }
            #expect(missing?.isNoSuchElement == true)
            #expect(
                try await session.findElement(css: "#form").findElement(css: "#go").attribute("data-kind") == "submit"
            )
            #expect(try await session.findElement(css: "#go").attribute("data-absent") == nil)
            #expect(try await session.pageSource().contains(#"<ul id="items">"#))

            let box = try await session.findElement(css: "#q")
            try await box.sendKeys("hello world")
            #expect(
                try await session.executeScript("return document.querySelector('#q').value", as: String.self)
                    == "hello world"
            )
            try await session.findElement(css: "#go").click()
            try await session.waitForURL { $0.path == "/answer" }
            #expect(try await session.waitForElement(css: "#uri").text() == "/answer?q=hello+world")
        }
    }

    @Test func scriptsSeeOnlyTheCookiesThatAreNotHttpOnly() async throws {
        try await withBrowser { session, server, _ in
            try await session.navigate(to: server.baseURL + "/")
            #expect(
                try await session.executeScript("return arguments[0] + '!'", arguments: ["hi"], as: String.self)
                    == "hi!"
            )
            let scriptCookies: String = try await session.executeScript("return document.cookie")
            #expect(scriptCookies == "visible=seen")
            let cookies = try await session.cookies()
            let hidden = try #require(cookies.first { $0.name == "hidden" })
            #expect(hidden.value == "secret" && hidden.httpOnly == true && hidden.sameSite == "Strict")
            #expect(cookies.first { $0.name == "visible" }?.httpOnly == false)
        }
    }

    @Test func seesAnAlertAndTakesAScreenshot() async throws {
        try await withBrowser { session, server, _ in
            try await session.navigate(to: server.baseURL + "/")
            #expect(try await session.alertText() == nil)
            let _: String? = try await session.executeScript("window.setTimeout(() => alert('boo'), 0)")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await session.alertText() == "boo")
            try await session.dismissAlert()
            #expect(try await session.alertText() == nil)
            let png = try await session.screenshot()
            #expect(png.count > 1000)
            #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        }
    }

    @Test func stoppingLeavesNoBrowserRunningEvenWhenTheTestFails() async throws {
        try BrowserAvailability.require()
        let server = try await TestPageServer.start()
        struct Failure: Error {}
        var group: ProcessGroup?
        do {
            try await ChromeDriver.with { driver in
                group = driver.process
                let session = try await driver.newSession()
                try await session.navigate(to: server.baseURL + "/")
                // chromedriver and the chromium it launched run in the group.
                #expect(driver.process.livingMembers.count > 1)
                throw Failure()
            }
            Issue.record("ChromeDriver.with swallowed the body's error")
        } catch is Failure {}
        await server.stop()
        let stopped = try #require(group)
        #expect(!stopped.isRunning)
        #expect(stopped.livingMembers.isEmpty)
    }
}
