#!/usr/bin/env bash
# Builds the DocC catalogs of the integrations (Sources/NAME/NAME.docc, one per library) with the toolchain
# alone, and fails on any documentation problem:
#   1. `swift package dump-symbol-graph` builds the package (reusing Integrations/.build) and extracts the
#      symbol graphs of its modules, public symbols only;
#   2. `docc convert --warnings-as-errors` converts each catalog with its module's symbol graph, so an
#      unresolved symbol or article link, or a malformed doc comment, fails.
#
# Usage: Integrations/Scripts/build-docs.sh [OUTPUT-DIRECTORY]   (default Integrations/.build-docs; one
# NAME.doccarchive each)
set -euo pipefail

cd "$(dirname "$0")/.."
scratch=.build-docs
output_directory="${1:-$scratch}"

echo "==== Integrations docs: symbol graphs ===="
# LIVERESULTS_BUILD_FLAGS: the build flags the package was built with (CI's), so that the build is reused.
read -r -a build_flags <<<"${LIVERESULTS_BUILD_FLAGS:-}"
dump_log="$(swift package "${build_flags[@]}" dump-symbol-graph --minimum-access-level public 2>&1)"
echo "$dump_log"
dump="$(echo "$dump_log" | sed -n 's/^Files written to //p' | tail -n 1)"
if [[ -z "$dump" || ! -d "$dump" ]]; then
    echo "error: swift package dump-symbol-graph did not say where it wrote the symbol graphs" >&2
    exit 1
fi

for catalog in Sources/*/*.docc; do
    module="$(basename "$catalog" .docc)"
    graphs="$scratch/symbol-graphs/$module"
    rm -rf "$graphs"
    mkdir -p "$graphs"
    cp "$dump/$module".symbols.json "$graphs"/
    cp "$dump/$module"@*.symbols.json "$graphs"/ 2>/dev/null || true
    echo "==== Integrations docs: $module, docc convert (warnings are errors) ===="
    output="$output_directory/$module.doccarchive"
    rm -rf "$output"
    docc convert "$catalog" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "$module" \
        --output-path "$output" \
        --warnings-as-errors
    echo "Documentation archive: $output"
done
