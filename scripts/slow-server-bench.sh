#!/usr/bin/env bash
# The first coder call of issue 30 on a slow machine, replayed against a fake server: prompts
# read at 18 tokens/s, 7.4 tokens/s generated, a 2,830-token repair prompt, `timeout_s = 120`
# and a 300 s budget, all divided by SCALE (default 10) so it runs in seconds. For each kotef
# binary given, prints its ending, its wall time (also scaled back up), and the requests the
# server received, each marked when it was the same body as an earlier one.
#
#   cargo build && cargo build -p kotef-testkit --example slow-model-server
#   scripts/slow-server-bench.sh [--scale N] target/debug/kotef [OTHER_KOTEF ...]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SERVER="$ROOT/target/debug/examples/slow-model-server"
SCALE=10
if [ "${1:-}" = "--scale" ]; then
	SCALE=$2
	shift 2
fi
[ $# -ge 1 ] || {
	echo "usage: $0 [--scale N] KOTEF_BINARY..." >&2
	exit 2
}
[ -x "$SERVER" ] || {
	echo "build the fake first: cargo build -p kotef-testkit --example slow-model-server" >&2
	exit 2
}
scaled() { python3 -c "print(max(1, round($1 / $SCALE)))"; }
PROMPT_RATE=$(python3 -c "print(18 * $SCALE)")
GEN_RATE=$(python3 -c "print(7.4 * $SCALE)")
TIMEOUT=$(scaled 120)
BUDGET=$(scaled 300)
FIX=$'The operator is wrong.\n\ncalc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n'
# A goal long enough for a repair prompt of about 2,830 tokens.
GOAL="Fix add in calc.py so the tests pass. $(python3 -c "print('Context line about the project. ' * 320)")"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "scale 1/$SCALE: prompts at $PROMPT_RATE tokens/s, $GEN_RATE generated/s, timeout_s = $TIMEOUT, budget $BUDGET s"

for BIN in "$@"; do
	"$SERVER" "$PROMPT_RATE" "$GEN_RATE" 512 "$FIX" >"$WORK/url" 2>"$WORK/requests" &
	SP=$!
	for _ in $(seq 100); do
		[ -s "$WORK/url" ] && break
		sleep 0.1
	done
	REPO="$WORK/repo-$SP"
	mkdir -p "$REPO"
	printf 'def add(a, b):\n    return a - b\n' >"$REPO/calc.py"
	printf 'import unittest\n\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n' >"$REPO/test_calc.py"
	printf '[model]\ntimeout_s = %s\n' "$TIMEOUT" >"$REPO/kotef.toml"
	git -C "$REPO" init -q
	git -C "$REPO" add -A
	git -C "$REPO" -c user.email=bench@kotef -c user.name=bench commit -qm init
	START=$(date +%s.%N)
	OPENAI_BASE_URL=$(head -1 "$WORK/url") "$BIN" run --repo "$REPO" --goal "$GOAL" \
		--model openai:local --test-command "python3 -m unittest -q test_calc" \
		--time-budget-s "$BUDGET" --json 2>/dev/null | tail -1 >"$WORK/summary" || true
	END=$(date +%s.%N)
	kill "$SP" 2>/dev/null || true
	wait "$SP" 2>/dev/null || true
	python3 - "$WORK/summary" "$START" "$END" "$SCALE" "$BIN" <<'EOF'
import json, sys
path, start, end, scale, binary = sys.argv[1:]
wall = float(end) - float(start)
try:
    s = json.load(open(path))
except ValueError:
    s = {}
print(f"{binary}: {s.get('terminal_status')} ({s.get('stop_rule')}), wall {wall:.1f} s "
      f"(x{scale}: {wall * float(scale):.0f} s), {s.get('model_calls')} model calls, "
      f"{s.get('completion_tokens')} tokens generated")
EOF
	sed 's/^/    /' "$WORK/requests"
	rm -f "$WORK/url"
done
