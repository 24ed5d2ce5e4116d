import Foundation
import HTTPTypes
import LiveResults

/// Where a stream request asks to resume from.
package enum _ResumePoint {
    /// The version a request names: `header` (`Last-Event-ID`) if given and present, else `?since=`. A value
    /// that is not a version is no version: the stream starts with the whole results.
    ///
    /// The header comes first: a browser's `EventSource` keeps the URL it was made with (and its `since`)
    /// for every reconnection, but sends the id of the last event it read, which is newer.
    package static func version(of request: LiveResultsRequest, header: HTTPField.Name?) -> ResultsVersion? {
        if let header, let value = request.headers[header] {
            return ResultsVersion(value.trimmingCharacters(in: .whitespaces))
        }
        return request.queryValue("since").flatMap { ResultsVersion($0) }
    }
}

extension HTTPField.Name {
    /// The header browsers send when an `EventSource` reconnects: the `id:` of the last event it read.
    package static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
