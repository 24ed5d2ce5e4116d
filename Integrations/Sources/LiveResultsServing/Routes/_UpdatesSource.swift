import Foundation
import HTTPTypes
import LiveResults

/// What a request's stream or whole results follow: the controller's whole results, or, when the request
/// asks for `?limit=` (and `?offset=`), a window of them, shared with the requests of the same range.
package struct _UpdatesSource<Entity: FetchableEntity & Codable>: Sendable {
    let version: @Sendable () -> ResultsVersion
    let wholeResults: @Sendable () -> ResultsUpdate<Entity>
    let updates: @Sendable (_ since: ResultsVersion?, _ bufferLimit: Int) -> ResultsUpdates<Entity>
    /// What the source keeps alive while it exists: a live query's hold on its controller.
    var holding: (any Sendable)? = nil

    /// The controller's whole results.
    static func whole(_ controller: FetchedResultsController<Entity>) -> Self {
        Self(
            version: { controller.version }, wholeResults: { controller.wholeResults() },
            updates: { controller.updates(since: $0, bufferLimit: $1) })
    }

    /// A window of the results, kept open while the source exists (with `holding`, too).
    static func window(_ window: LiveWindow<Entity>, holding: (any Sendable)? = nil) -> Self {
        Self(
            version: { window.version }, wholeResults: { window.wholeResults() },
            updates: { window.updates(since: $0, bufferLimit: $1) }, holding: holding)
    }

    /// What `request` asks for of `controller`: a window at `?offset=` (0 by default) of `?limit=` positions, from
    /// `windows`, the controller's windows shared by range, or the whole results without a limit.
    ///
    /// - Throws: `400 Bad Request`, whose message starts with the parameter, for a value that is not a
    ///   non-negative integer or a limit above `maximumLimit`.
    static func requested(
        by request: LiveResultsRequest, of controller: FetchedResultsController<Entity>,
        windows: _SharedWindows<Entity>, maximumLimit: Int
    ) throws -> Self {
        guard let limitText = request.queryValue("limit") else {
            guard request.queryValue("offset") == nil else { throw badRequest("offset", "needs a limit") }
            return .whole(controller)
        }
        guard let limit = Int(limitText), limit >= 0 else {
            throw badRequest("limit", "must be a non-negative integer")
        }
        guard limit <= maximumLimit else { throw badRequest("limit", "must be at most \(maximumLimit)") }
        let offset = try request.queryValue("offset").map { text in
            guard let offset = Int(text), offset >= 0 else {
                throw badRequest("offset", "must be a non-negative integer")
            }
            return offset
        }
        return .window(windows.window(.range(offset: offset ?? 0, limit: limit)))
    }

    /// A `400` whose message starts with the parameter's name (the server's error JSON carries it).
    private static func badRequest(_ parameter: String, _ problem: String) -> LiveResultsRefusal {
        .message(.badRequest, "\(parameter) \(problem)")
    }
}
