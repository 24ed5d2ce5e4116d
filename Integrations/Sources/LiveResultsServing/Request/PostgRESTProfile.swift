/// The schema profile headers: `Accept-Profile` (reads) and `Content-Profile` (writes) may name `public`, the
/// one schema served; another is refused as PostgREST refuses it.
public enum PostgRESTProfile {
    /// The schema served.
    public static let schema = "public"

    /// Checks a profile header's value.
    ///
    /// - Throws: ``PostgRESTError/invalidSchema(_:served:)`` (`406 PGRST106`) for a schema other than `public`.
    /// - Complexity: O(1).
    public static func check(_ profile: String?) throws(PostgRESTError) {
        guard let profile, profile != schema else { return }
        throw .invalidSchema(profile, served: [schema])
    }
}
