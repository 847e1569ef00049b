#!/usr/bin/env bash
# The webhook benchmark against probot: the same signed delivery (the octokit example
# `issues.labeled` with the label `bug`, which is no trigger) posted by the same load loop
# (benches/probot/load.mjs: keep-alive connections, a fresh delivery id per request) at
# `kotef serve` and at a Probot 14 app listening to `issues.labeled`, one after the other.
# Prints each side's JSON line (requests/s, 2xx/4xx/5xx counts, p50/p99) and the ratio of
# 2xx answers per second. kotef's GitHub API is a stub that has no kotef.toml anywhere.
#
#   scripts/probot-bench.sh [SECONDS=10] [CONNECTIONS=16]
#
# Needs node and npm (probot is installed once into PROBOT_DIR, default
# ~/.cache/kotef/probot) and a kotef binary (KOTEF_BIN, default target/release/kotef, built
# when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-10}
conns=${2:-16}
payload=$root/crates/kotef-github/tests/fixtures/octokit-webhooks-examples/issues.labeled.payload.json
probot_dir=${PROBOT_DIR:-$HOME/.cache/kotef/probot}
if [ ! -d "$probot_dir/node_modules/probot" ]; then
  mkdir -p "$probot_dir"
  (cd "$probot_dir" && npm install --no-audit --no-fund probot@14 >/dev/null)
fi
cp benches/probot/app.mjs "$probot_dir/app.mjs"
bin=${KOTEF_BIN:-target/release/kotef}
[ -x "$bin" ] || cargo build --quiet --release --bin kotef

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 300); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on $1" >&2
  return 1
}

# The GitHub API stub: every file is missing, so no repository sets its own trigger label.
api=$(free_port)
python3 - "$api" <<'EOF' &
import http.server, sys
class NotFound(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = b'{"message": "Not Found"}'
        self.send_response(404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), NotFound).serve_forever()
EOF
pids+=($!)

kport=$(free_port)
KOTEF_WEBHOOK_SECRET=bench KOTEF_GITHUB_TOKEN=ghp_bench KOTEF_BOT_LOGIN=kotef-bot \
  KOTEF_GITHUB_API_URL="http://127.0.0.1:$api" KOTEF_DATA_DIR="$tmp/kotef" \
  "$bin" serve --listen "127.0.0.1:$kport" --executor actions >"$tmp/kotef.log" 2>&1 &
pids+=($!)
pport=$(free_port)
(cd "$probot_dir" && PORT=$pport SECRET=bench exec node app.mjs >"$tmp/probot.log" 2>&1) &
pids+=($!)
wait_port "$api"
wait_port "$kport"
wait_port "$pport"

load() { node benches/probot/load.mjs "http://127.0.0.1:$1/webhook" bench issues "$payload" "$2" "$conns"; }
load "$kport" 1 >/dev/null
load "$pport" 1 >/dev/null
kotef=$(load "$kport" "$seconds")
probot=$(load "$pport" "$seconds")
echo "kotef:  $kotef"
echo "probot: $probot"
python3 - "$kotef" "$probot" <<'EOF'
import json, sys
k, p = (json.loads(a) for a in sys.argv[1:])
print(f"2xx answers/s: kotef {k['rps_2xx']}, probot {p['rps_2xx']}, ratio {k['rps_2xx'] / max(p['rps_2xx'], 1):.2f}x")
EOF
