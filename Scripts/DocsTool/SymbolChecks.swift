import Foundation

/// The parts of a symbol graph file that the checks read.
struct SymbolGraph: Decodable {
    var symbols: [Symbol]
    var relationships: [Relationship]?

    struct Symbol: Decodable {
        var identifier: Identifier
        var kind: Kind
        var pathComponents: [String]
        var docComment: DocComment?
        var location: Location?
        var spi: Bool?
        var declarationFragments: [Fragment]?

        struct Identifier: Decodable {
            var precise: String
        }

        struct Fragment: Decodable {
            var spelling: String
        }

        struct Kind: Decodable {
            var identifier: String
            var displayName: String
        }

        struct DocComment: Decodable {
            var module: String?
            var lines: [Line]

            struct Line: Decodable { var text: String }
        }

        struct Location: Decodable {
            var uri: String
            var position: Position

            struct Position: Decodable { var line: Int }
        }
    }

    /// A relationship between two symbols: `memberOf`, `requirementOf`, `defaultImplementationOf`, …
    struct Relationship: Decodable {
        var kind: String
        var source: String
        var target: String
    }
}

/// The module whose documentation is checked.
let moduleName = "LiveResults"

/// The symbol graph files of a folder, by file name, in order; the module's own must be among them.
func loadSymbolGraphs(_ folder: String) throws -> [(file: String, graph: SymbolGraph)] {
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
        $0.hasSuffix(".symbols.json")
    }.sorted()
    guard files.contains("\(moduleName).symbols.json") else {
        throw ToolError("error: no \(moduleName).symbols.json in \(folder)")
    }
    return try files.map { file in
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
        return (file, try JSONDecoder().decode(SymbolGraph.self, from: data))
    }
}

/// Fails unless every public symbol declared in the sources has a doc comment of its own, every
/// top-level symbol is curated in a Topics section of the catalog, and every article is too.
///
/// - Symbols: those of the symbol graphs (public, not underscored, not SPI: the extractor leaves the
///   others out; the check skips them again). Members that the sources do not declare (inherited from
///   a protocol extension of another module, such as `filter(_:)` on a collection) have no location
///   and are skipped: their module documents them. An extension block (`extension IndexPath`) is
///   skipped too: its members carry the comments.
/// - A doc comment that the compiler took from elsewhere (a protocol requirement's, in another module)
///   does not count: the symbol needs its own.
/// - Curation: a type, protocol or global of the module, or a type that the module extends, must be
///   listed in a `## Topics` section of the landing page, an article or an extension page.
func checkSymbols(symbolGraphs: String, catalog: String) throws {
    var problems: [String] = []
    var documented = 0
    var topLevel: [String] = []
    for (file, graph) in try loadSymbolGraphs(symbolGraphs) {
        // `LiveResults@FoundationEssentials.symbols.json` holds what the module adds to another one.
        let baseName = file.dropLast(".symbols.json".count)
        let extendedModule = baseName.split(separator: "@").dropFirst().first.map(String.init)
        for symbol in graph.symbols {
            let path = symbol.pathComponents.joined(separator: "/")
            if symbol.pathComponents.contains(where: { $0.hasPrefix("_") }) || symbol.spi == true { continue }
            if symbol.pathComponents.count == 1 {
                if let extendedModule {
                    if symbol.kind.identifier == "swift.extension" { topLevel.append("\(extendedModule)/\(path)") }
                } else {
                    topLevel.append(path)
                }
            }
            guard symbol.kind.identifier != "swift.extension", let location = symbol.location else { continue }
            let comment = symbol.docComment.map { $0.lines.map(\.text).joined(separator: "\n") } ?? ""
            let place = "\(URL(string: location.uri)?.path ?? location.uri):\(location.position.line + 1)"
            if comment.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                problems.append(
                    "\(place): error: public \(symbol.kind.displayName.lowercased()) \(path) has no doc comment")
            } else if let module = symbol.docComment?.module, module != moduleName {
                problems.append(
                    "\(place): error: public \(symbol.kind.displayName.lowercased()) \(path) has no doc comment of its own (it shows \(module)'s)"
                )
            } else {
                documented += 1
            }
        }
    }

    let pages = try catalogPages(catalog)
    let curated = Set(pages.flatMap(\.topicLinks))
    for name in topLevel.sorted() {
        let isCurated = curated.contains {
            let link = $0.hasPrefix(moduleName + "/") ? String($0.dropFirst(moduleName.count + 1)) : $0
            return link == name || link.hasPrefix(name + "-")
        }
        if !isCurated {
            problems.append(
                "\(catalog)/\(moduleName).md: error: \(name) is in no Topics group: list it as - ``\(name)`` under ## Topics of the landing page or an article"
            )
        }
    }
    let linkedArticles = Set(pages.flatMap(\.articleLinks))
    for page in pages where page.isArticle && !linkedArticles.contains(page.name) {
        problems.append("\(page.path): error: the article is in no Topics group: list it as - <doc:\(page.name)>")
    }

    if !problems.isEmpty {
        throw ToolError(problems.joined(separator: "\n") + "\nerror: \(problems.count) documentation problem(s)")
    }
    let articles = pages.filter(\.isArticle).map(\.name)
    print(
        "ok: \(documented) public symbols have a doc comment; \(topLevel.count) top-level symbols are curated; "
            + "\(articles.count) articles: \(articles.joined(separator: ", "))"
    )
}

/// A Markdown page of the catalog.
struct CatalogPage {
    var path: String
    /// The file name without `.md`.
    var name: String
    /// Whether the page is an article (its title is text, not a symbol link).
    var isArticle: Bool
    /// The symbol links (``` ``Name`` ```) in list items of its Topics section.
    var topicLinks: [String]
    /// The article links (`<doc:Name>`) in list items of its Topics section.
    var articleLinks: [String]
}

/// The Markdown pages of a catalog, with the links of their Topics sections.
func catalogPages(_ catalog: String) throws -> [CatalogPage] {
    guard let enumerator = FileManager.default.enumerator(atPath: catalog) else {
        throw ToolError("error: no catalog at \(catalog)")
    }
    var pages: [CatalogPage] = []
    for case let file as String in enumerator where file.hasSuffix(".md") {
        let path = catalog + "/" + file
        let lines = try readLines(path)
        let title = lines.first { $0.hasPrefix("# ") } ?? ""
        var page = CatalogPage(
            path: path, name: ((file as NSString).lastPathComponent as NSString).deletingPathExtension,
            isArticle: !title.contains("``"), topicLinks: [], articleLinks: [])
        var inTopics = false
        for line in lines {
            if line.hasPrefix("# ") || line.hasPrefix("## ") {
                inTopics = line.trimmingCharacters(in: .whitespaces) == "## Topics"
                continue
            }
            guard inTopics, line.trimmingCharacters(in: .whitespaces).hasPrefix("- ") else { continue }
            page.topicLinks += line.matches(of: /``([^`]+)``/).map { String($0.1) }
            page.articleLinks += line.matches(of: /<doc:([^>#]+)>/).map {
                String($0.1.split(separator: "/").last ?? $0.1)
            }
        }
        pages.append(page)
    }
    return pages.sorted { $0.path < $1.path }
}
