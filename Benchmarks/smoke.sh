#!/usr/bin/env bash
# Smoke pass of the benchmark package, for CI: builds it in release, prints the performance targets as
# measured ratios at small sizes (Ratios --quick), soaks one controller with every capability at 10⁵
# events (Soak; a violation or memory growth fails), and runs one small package-benchmark benchmark.
#
# A build failure fails the script, and so does a soak violation. Unmet performance targets do not: they are printed, and judged
# by people from the full report (`swift run -c release Ratios`).
set -euo pipefail

cd "$(dirname "$0")"

header() {
    echo
    echo "==== $* ===="
}

header "Build the benchmark package (release)"
swift build -c release

header "Ratios --quick (targets are printed, not enforced)"
swift run -c release --skip-build Ratios --quick

header "Soak: 10⁵ events of every capability together, checked at every delivery and step"
swift run -c release --skip-build Soak --events 100000 --seed "${SOAK_SEED:-1}"

header "package-benchmark: one small benchmark"
swift package --disable-sandbox benchmark --no-progress \
    --filter '^LiveResults: single events, per event, n=1k$'
