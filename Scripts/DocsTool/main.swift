// The documentation checks' helper, built and run by `Scripts/build-docs.sh` and
// `Scripts/check-snippets.sh` (see DEVELOPMENT.md, "Documentation"). Foundation only, so it builds with
// the bare toolchain.
//
//     docs-tool check-symbols SYMBOL_GRAPH_DIR CATALOG_DIR
//     docs-tool check-complexity SYMBOL_GRAPH_DIR
//     docs-tool check-links CATALOG_DIR DOCUMENT...
//     docs-tool generate-snippets REPOSITORY PACKAGE_DIR DOCUMENT...
//     docs-tool explain-diagnostics PACKAGE_DIR BUILD_LOG
//     docs-tool verify-output PACKAGE_DIR BIN_DIR
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: docs-tool check-symbols SYMBOL_GRAPH_DIR CATALOG_DIR
           docs-tool check-complexity SYMBOL_GRAPH_DIR
           docs-tool check-links CATALOG_DIR DOCUMENT...
           docs-tool generate-snippets REPOSITORY PACKAGE_DIR DOCUMENT...
           docs-tool explain-diagnostics PACKAGE_DIR BUILD_LOG
           docs-tool verify-output PACKAGE_DIR BIN_DIR
    """

do {
    switch (arguments.first, arguments.count) {
    case ("check-symbols", 3):
        try checkSymbols(symbolGraphs: arguments[1], catalog: arguments[2])
    case ("check-complexity", 2):
        try checkComplexity(symbolGraphs: arguments[1])
    case ("check-links", 3...):
        try checkLinks(catalog: arguments[1], documents: Array(arguments[2...]))
    case ("generate-snippets", 4...):
        try generateSnippets(repository: arguments[1], package: arguments[2], documents: Array(arguments[3...]))
    case ("explain-diagnostics", 3):
        try explainDiagnostics(package: arguments[1], buildLog: arguments[2])
    case ("verify-output", 3):
        try verifyOutput(package: arguments[1], binaries: arguments[2])
    default:
        throw ToolError(usage)
    }
} catch let error as ToolError {
    printError(error.message)
    exit(1)
} catch {
    printError("error: \(error)")
    exit(1)
}
