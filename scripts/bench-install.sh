#!/usr/bin/env bash
# Prints how long scripts/install.sh takes with the release asset present: a kotef binary is
# packed as the release packs it, served over loopback HTTP (python3 -m http.server), and
# installed RUNS times into fresh directories; the median and the range are printed.
#
#   scripts/bench-install.sh [BINARY] [RUNS]
#
# BINARY defaults to target/release/kotef, else target/debug/kotef (build one first, e.g.
# `cargo build --release --bin kotef`); RUNS defaults to 7.
set -euo pipefail

die() {
  echo "bench-install: error: $*" >&2
  exit 1
}

root=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-}
runs=${2:-7}
if [ -z "$binary" ]; then
  for candidate in "$root/target/release/kotef" "$root/target/debug/kotef"; do
    if [ -x "$candidate" ]; then
      binary=$candidate
      break
    fi
  done
fi
[ -n "$binary" ] && [ -x "$binary" ] || die "no kotef binary; build one (cargo build --release --bin kotef) or pass its path"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '$runs'"
command -v curl >/dev/null || die "curl is needed (the installer downloads with it)"
command -v python3 >/dev/null || die "python3 is needed to serve the release over loopback"

export LC_ALL=C
# Wall-clock seconds: bash 5's EPOCHREALTIME, else python3 (macOS ships bash 3.2).
now() {
  if [ -n "${EPOCHREALTIME:-}" ]; then echo "$EPOCHREALTIME"; else python3 -c 'import time; print(time.time())'; fi
}

work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-musl ;;
  Linux-aarch64) target=aarch64-unknown-linux-musl ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  *) die "no release target for $(uname -s) $(uname -m)" ;;
esac
# On Apple silicon under Rosetta the installer picks the arm64 asset; pin the target.
export KOTEF_TARGET=$target

version=v0.0.0-bench
sh "$root/scripts/package.sh" "$target" "$binary" "$work/release/$version" >/dev/null
sh "$root/scripts/package.sh" --checksums "$work/release/$version" >/dev/null

# A loopback-only file server on a free port; its first line names the port.
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/release" >"$work/server.log" 2>&1 &
server=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$work/server.log" | head -n 1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || die "the loopback server did not start: $(cat "$work/server.log")"

asset_size=$(wc -c <"$work/release/$version/kotef-$target.tar.gz" | tr -d ' ')
times=()
for i in $(seq 1 "$runs"); do
  start=$(now)
  KOTEF_VERSION=$version KOTEF_DOWNLOAD_BASE="http://127.0.0.1:$port" \
    KOTEF_INSTALL_DIR="$work/install-$i" KOTEF_BUILD_FALLBACK="echo fallback taken >&2; exit 1" \
    sh "$root/scripts/install.sh" 2>"$work/install-$i.log" \
    || die "install $i failed: $(cat "$work/install-$i.log")"
  end=$(now)
  times+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')")
done

sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(printf '%s\n' "$sorted" | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
min=$(printf '%s\n' "$sorted" | head -n 1)
max=$(printf '%s\n' "$sorted" | tail -n 1)
echo "install with the asset present: median ${median} s over $runs runs (min ${min} s, max ${max} s)"
echo "asset: kotef-$target.tar.gz, $((asset_size / 1024)) KiB, from $binary"
