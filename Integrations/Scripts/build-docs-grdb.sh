#!/usr/bin/env bash
# Builds the DocC catalog of the integrations (Sources/LiveResultsGRDB/LiveResultsGRDB.docc) with
# the toolchain alone, and fails on any documentation problem:
#   1. `swift package dump-symbol-graph` builds the package (reusing Integrations/.build) and extracts the
#      symbol graphs of its modules, public symbols only;
#   2. `docc convert --warnings-as-errors` converts the catalog with LiveResultsGRDB's symbol graph, so an
#      unresolved symbol or article link, or a malformed doc comment, fails.
#
# Usage: Integrations/Scripts/build-docs-grdb.sh [OUTPUT]   (default Integrations/.build-docs/LiveResultsGRDB.doccarchive)
set -euo pipefail

cd "$(dirname "$0")/.."
scratch=.build-docs
output="${1:-$scratch/LiveResultsGRDB.doccarchive}"
catalog=Sources/LiveResultsGRDB/LiveResultsGRDB.docc
graphs="$scratch/symbol-graphs-grdb"

echo "==== Integrations docs: symbol graphs ===="
dump="$(swift package dump-symbol-graph --minimum-access-level public 2>&1 | tee /dev/stderr | sed -n 's/^Files written to //p' | tail -n 1)"
if [[ -z "$dump" || ! -d "$dump" ]]; then
    echo "error: swift package dump-symbol-graph did not say where it wrote the symbol graphs" >&2
    exit 1
fi
rm -rf "$graphs"
mkdir -p "$graphs"
cp "$dump"/LiveResultsGRDB*.symbols.json "$graphs"/
ls "$graphs"

echo "==== Integrations docs: docc convert (warnings are errors) ===="
rm -rf "$output"
docc convert "$catalog" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name LiveResultsGRDB \
    --fallback-bundle-identifier LiveResultsGRDB \
    --output-path "$output" \
    --warnings-as-errors
echo "Documentation archive: $output"
