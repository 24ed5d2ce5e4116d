import Foundation
import NIOCore

/// The page: plain HTML and JavaScript, a resource of this target (`Page/index.html`), no build step.
enum TodoPage {
    static func html() throws -> ByteBuffer {
        guard let url = Bundle.module.url(forResource: "index", withExtension: "html", subdirectory: "Page") else {
            throw TodoServerError.status(.internalServerError, "the page is missing from the server's resources")
        }
        return ByteBuffer(data: try Data(contentsOf: url))
    }
}
