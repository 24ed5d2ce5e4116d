import Foundation

extension FileResultsStore {
    /// Why a ``FileResultsStore`` could not load, save or remove results.
    ///
    /// None of them is fatal. For a controller's cache, every one means "report it and go on without
    /// the cache": fetch, then save, which replaces an unreadable, corrupt or older-version file.
    ///
    /// ```swift
    /// do {
    ///     cached = try await store.results(forKey: "posts")
    /// } catch let failure as FileResultsStore.Failure {
    ///     logger.warning("\(failure)")      // e.g. corrupt(…/posts.results, "the file is empty")
    /// }
    /// ```
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The file exists but could not be read (permissions, a directory in its place, an I/O
        /// error); the string is the system's description.
        case unreadable(URL, String)
        /// The file is not a whole results file of this store: empty, truncated, damaged (its
        /// checksum does not match), or something else entirely; the string says which.
        case corrupt(URL, String)
        /// The file is a results file of another format version, `found`, than
        /// ``FileResultsStore/formatVersion``: written by another version of the library.
        case unsupportedVersion(URL, found: Int)
        /// The directory could not be created or written, or the file could not be replaced or
        /// removed; the string is the system's description. The URL is the directory or the file.
        case unwritable(URL, String)

        /// The file or directory concerned.
        public var url: URL {
            switch self {
            case .unreadable(let url, _), .corrupt(let url, _), .unsupportedVersion(let url, _),
                .unwritable(let url, _):
                url
            }
        }

        /// A sentence naming the file and the problem.
        public var description: String {
            switch self {
            case .unreadable(let url, let reason): "Cannot read the results file \(url.path): \(reason)"
            case .corrupt(let url, let reason): "The results file \(url.path) is corrupt: \(reason)"
            case .unsupportedVersion(let url, let found):
                "The results file \(url.path) has format version \(found); this library reads version "
                    + "\(FileResultsStore.formatVersion)"
            case .unwritable(let url, let reason): "Cannot write the results file at \(url.path): \(reason)"
            }
        }
    }
}
