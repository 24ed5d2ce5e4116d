import Foundation

/// A reader's path: fails unless every relative link of `documents` leads somewhere.
///
/// - A link to a file or folder (`[…](DEVELOPMENT.md)`, `[…](Sources/…/LoadingPages.md)`) must name one
///   that exists, relative to the document's folder (or, for `/…`, to the repository's root, where the tool
///   runs); with an anchor (`….md#performance`), the file must
///   have a heading with that anchor.
/// - A link into the catalog must name one of its articles (a page whose title is text, listed in a
///   Topics group, which `check-symbols` checks): that is how the README points at the articles, as
///   relative links that GitHub renders.
/// - An anchor alone (`#installation`) must be a heading of the document itself.
/// - A `<doc:…>` link is DocC's, and GitHub shows it as text: outside the catalog, it is an error.
///
/// Anchors are GitHub's: the heading in lower case, without what is neither a letter, a digit, a space, a
/// hyphen nor an underscore, spaces made hyphens, and `-1`, `-2`, … after repeated headings. Links in code
/// blocks and code spans are not links; absolute URLs (`https:`, `mailto:`) are not checked.
func checkLinks(catalog: String, documents: [String]) throws {
    let catalog = absolutePath(catalog)
    let articles = Set(try catalogPages(catalog).filter(\.isArticle).map { absolutePath($0.path) })
    var problems: [String] = []
    var checked = 0
    var articleLinks: Set<String> = []
    for document in documents {
        let folder = (absolutePath(document) as NSString).deletingLastPathComponent
        for link in try links(inDocument: document) {
            let place = "\(document):\(link.line)"
            if link.target.hasPrefix("doc:") {
                problems.append(
                    "\(place): error: <doc:…> links work in the catalog only: link the article's .md file")
                continue
            }
            if link.target.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil { continue }
            checked += 1
            let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let anchor = parts.count > 1 ? String(parts[1]) : nil
            // GitHub resolves `/path` from the repository's root, where the tool runs.
            let target: String
            if path.isEmpty {
                target = absolutePath(document)
            } else if path.hasPrefix("/") {
                target = absolutePath(String(path.dropFirst()))
            } else {
                target = absolutePath(folder + "/" + path)
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: target, isDirectory: &isFolder) else {
                problems.append("\(place): error: \(link.target): no such file")
                continue
            }
            if target.hasPrefix(catalog + "/") {
                guard articles.contains(target) else {
                    problems.append("\(place): error: \(link.target) is not an article of the catalog")
                    continue
                }
                articleLinks.insert((target as NSString).lastPathComponent)
            }
            if let anchor, !anchor.isEmpty {
                guard !isFolder.boolValue, target.hasSuffix(".md") else {
                    problems.append("\(place): error: \(link.target): an anchor needs a Markdown file")
                    continue
                }
                if !(try headingAnchors(inDocument: target)).contains(anchor) {
                    problems.append("\(place): error: \(link.target): no heading with the anchor #\(anchor)")
                }
            }
        }
    }
    if !problems.isEmpty {
        throw ToolError(problems.joined(separator: "\n") + "\nerror: \(problems.count) dead link(s)")
    }
    print(
        "ok: \(checked) relative links of \(documents.joined(separator: ", ")) resolve, "
            + "\(articleLinks.count) of them to articles: \(articleLinks.sorted().joined(separator: ", "))")
}

/// A link of a Markdown document: its target and its 1-based line.
struct DocumentLink {
    var target: String
    var line: Int
}

/// The inline links (`[text](target)`, images too), reference definitions (`[name]: target`) and
/// `<doc:…>` links of a document, outside code blocks and code spans.
func links(inDocument path: String) throws -> [DocumentLink] {
    var result: [DocumentLink] = []
    for (number, line) in try proseLines(inDocument: path) {
        let text = line.replacing(/`[^`]*`/, with: "")
        for match in text.matches(of: /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/) {
            result.append(DocumentLink(target: String(match.1), line: number))
        }
        if let match = text.wholeMatch(of: /\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?.*/) {
            result.append(DocumentLink(target: String(match.1), line: number))
        }
        for match in text.matches(of: /<doc:([^>]+)>/) {
            result.append(DocumentLink(target: "doc:" + match.1, line: number))
        }
    }
    return result
}

/// The anchors GitHub gives the headings of a Markdown document.
func headingAnchors(inDocument path: String) throws -> Set<String> {
    var anchors: Set<String> = []
    var seen: [String: Int] = [:]
    for (_, line) in try proseLines(inDocument: path) {
        guard let match = line.wholeMatch(of: /\s{0,3}#{1,6}\s+(.*?)\s*#*\s*/) else { continue }
        let slug = String(
            match.1.lowercased().unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
            }
        ).replacingOccurrences(of: " ", with: "-")
        let count = seen[slug, default: 0]
        seen[slug] = count + 1
        anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
    }
    return anchors
}

/// The lines of a Markdown document outside its fenced code blocks, with their 1-based numbers.
func proseLines(inDocument path: String) throws -> [(number: Int, line: String)] {
    var result: [(Int, String)] = []
    var fence: Fence?
    for (index, line) in try readLines(path).enumerated() {
        if let open = fence {
            if isClosingFence(line, for: open) { fence = nil }
            continue
        }
        if let open = openingFence(line) {
            fence = open
            continue
        }
        result.append((index + 1, line))
    }
    return result
}
