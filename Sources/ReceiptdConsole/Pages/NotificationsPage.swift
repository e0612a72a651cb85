import ReceiptdCore

/// `GET /notifications` (filters `store`, `type`): the newest store notifications as `<table id="notifications">`.
package enum NotificationsPage {
    /// The page of `notifications`.
    package static func page(_ notifications: [NotificationSummary], filter: NotificationFilter) -> ConsolePage {
        let rows = notifications.map { notification -> HTML in
            """
            <tr data-notification-id="\(notification.notificationID)"><td>\(ConsoleMarkup.time(notification.receivedAt))</td>\
            <td>\(notification.store)</td><td>\(notification.type)\(notification.subtype.map { "/\($0)" } ?? "")</td>\
            <td class="id">\(ConsoleMarkup.text(notification.transactionID))</td><td>\(ConsoleMarkup.text(notification.environment))</td>\
            <td>\(notification.source)</td><td>\(ConsoleMarkup.time(notification.processedAt))</td>\
            <td>\(ConsoleMarkup.text(notification.result))</td><td>\(ConsoleMarkup.error(notification.error))</td></tr>
            """
        }
        return ConsolePage(
            title: "Notifications",
            section: .notifications,
            body: """
                <form id="notifications-filter" class="filter" method="get" action="/notifications">
                <label>store <input type="text" name="store" value="\(filter.store ?? "")"></label>
                <label>type <input type="text" name="type" value="\(filter.type ?? "")"></label>
                <button type="submit">Filter</button>
                </form>
                \(ConsoleMarkup.table(id: "notifications", headers: ["received", "store", "type", "transaction", "environment", "source", "processed", "result", "error"], rows: rows, empty: "No store notifications."))
                """
        )
    }
}
