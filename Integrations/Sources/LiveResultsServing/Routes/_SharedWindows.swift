import LiveResults
import NIOConcurrencyHelpers

/// The windows of one controller shared by range: the streams of one range follow one window, so the window's
/// change set is worked out once for all of them, its versions are held once, and a client that reconnects finds
/// the versions it read.
///
/// Up to ``maximumSharedWindows`` ranges are shared, for as long as this value lives; a range beyond them gets a
/// window of the caller's own, closed when released, so that clients asking for ever new ranges cannot make the
/// controller follow windows without bound.
final class _SharedWindows<Entity: FetchableEntity>: Sendable {
    private let controller: FetchedResultsController<Entity>
    private let windows = NIOLockedValueBox<[WindowRange: LiveWindow<Entity>]>([:])

    /// How many ranges are shared.
    static var maximumSharedWindows: Int { 32 }

    init(of controller: FetchedResultsController<Entity>) {
        self.controller = controller
    }

    /// The window at `range`: the shared one, or one of the caller's own past ``maximumSharedWindows`` ranges.
    ///
    /// - Complexity: O(1) for a shared window; O(log *W*) to make one over *W* windows.
    func window(_ range: WindowRange) -> LiveWindow<Entity> {
        windows.withLockedValue { windows in
            if let window = windows[range] { return window }
            let window = controller.window(range)
            if windows.count < Self.maximumSharedWindows { windows[range] = window }
            return window
        }
    }
}
