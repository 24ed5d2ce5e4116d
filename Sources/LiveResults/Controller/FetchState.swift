/// Where a ``FetchedResultsController`` is in its fetch cycle.
public enum FetchState: Sendable {
    /// Nothing was fetched yet, or the controller was reset.
    case idle
    /// A fetch is in flight. What was shown before stays shown until it completes.
    case loading
    /// The last fetch succeeded; live events are being applied.
    case loaded
    /// The last fetch threw this error. What was shown before stays shown.
    case failed(any Error)
}

extension FetchState {
    /// Whether the state is ``idle``.
    @inlinable public var isIdle: Bool {
        if case .idle = self { true } else { false }
    }

    /// Whether the state is ``loading``.
    @inlinable public var isLoading: Bool {
        if case .loading = self { true } else { false }
    }

    /// Whether the state is ``loaded``.
    @inlinable public var isLoaded: Bool {
        if case .loaded = self { true } else { false }
    }

    /// The error of a ``failed(_:)`` state, else `nil`.
    @inlinable public var error: (any Error)? {
        if case .failed(let error) = self { error } else { nil }
    }
}

extension FetchState: CustomStringConvertible {
    /// `idle`, `loading`, `loaded` or `failed(error)`.
    @inlinable public var description: String {
        switch self {
        case .idle: "idle"
        case .loading: "loading"
        case .loaded: "loaded"
        case .failed(let error): "failed(\(error))"
        }
    }
}
