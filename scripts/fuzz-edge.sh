#!/usr/bin/env bash
# Fuzzes what kotef reads from outside (webhook signatures, event payloads, the planner's reply,
# text tool calls) with CASES mutated inputs per target (default 1,000,000): no panic, no case
# slower than --max-case-ms (2,000 by default: a hang, not a slow machine), no mutated
# signature that verifies. CI runs a short smoke:
#   scripts/fuzz-edge.sh 2000
# Extra arguments go to the fuzzer (e.g. --seed 7, --max-case-ms 500); KOTEF_FUZZ_PROFILE=release
# builds it optimised (the default is the dev profile, whose dependencies are optimised).
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-1000000}"
shift || true
profile=()
[ "${KOTEF_FUZZ_PROFILE:-}" = release ] && profile=(--release)
exec cargo run --quiet "${profile[@]}" --example fuzz_edge -- --cases "$cases" "$@"
