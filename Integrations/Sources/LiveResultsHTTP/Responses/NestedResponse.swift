/// Another response type read from the same answer: a paging wrapper shared by many responses, say.
///
/// ```swift
/// struct PageInfo: Decodable {
///     @ResponseHeader<LinkHeaderStrategy> var link: LinkHeader?
///     @ResponseStatusCode var status
/// }
/// struct TodosPage: Decodable {
///     @ResponseBody<[Todo]> var todos
///     @NestedResponse var page: PageInfo
/// }
/// ```
@propertyWrapper
public struct NestedResponse<Nested: Decodable & Sendable>: Sendable {
    /// The nested response.
    public var wrappedValue: Nested

    /// A nested response, for responses made in code.
    public init(wrappedValue: Nested) {
        self.wrappedValue = wrappedValue
    }
}

extension NestedResponse: Decodable, _ResponseField {
    /// Read only by ``HTTPAPIClient``.
    public init(from decoder: any Decoder) throws {
        throw _ResponseDecoder.notAResponse(decoder)
    }

    init(response: _ResponseContext, property: String) throws {
        wrappedValue = try response.decode(Nested.self)
    }
}
