#!/bin/sh
# Installs kotef: the release binary for this machine, checked against the release's
# SHA256SUMS. Used by the GitHub Action (action.yml) and by people:
#
#   curl -fsSL https://raw.githubusercontent.com/kotef/kotef/main/scripts/install.sh | sh
#
# Settings (environment):
#   KOTEF_VERSION         the release tag, e.g. v1.0.0 (default: latest)
#   KOTEF_REPO            the GitHub repository publishing releases (default: kotef/kotef)
#   KOTEF_DOWNLOAD_BASE   where releases live, as BASE/TAG/ASSET
#                         (default: https://github.com/$KOTEF_REPO/releases/download)
#   KOTEF_INSTALL_DIR     where `kotef` goes (default: $HOME/.kotef/bin)
#   KOTEF_DOWNLOAD_RETRIES  retries of a failed download (default: 4)
#   KOTEF_TARGET          the asset's target triple (default: detected, e.g.
#                         x86_64-unknown-linux-musl, aarch64-apple-darwin)
#   KOTEF_SOURCE_DIR      a kotef checkout to build when there is no release (default: this
#                         script's checkout, when it runs from one)
#   KOTEF_BUILD_FALLBACK  the command run (with sh -c) when there is no release, instead of
#                         `cargo install --locked --path "$KOTEF_SOURCE_DIR"`; it must leave
#                         an executable `kotef` in "$KOTEF_INSTALL_DIR"
#
# Exit status: 0 installed; 1 anything else (a checksum mismatch, a failed download, no
# release and nothing to build). Only a missing release (HTTP 404 for SHA256SUMS or the
# asset, or no asset for this platform) leads to the build fallback, and the script says so.
set -eu

say() { printf 'kotef-install: %s\n' "$*" >&2; }
die() {
  say "error: $*"
  exit 1
}

KOTEF_REPO=${KOTEF_REPO:-kotef/kotef}
KOTEF_VERSION=${KOTEF_VERSION:-latest}
KOTEF_INSTALL_DIR=${KOTEF_INSTALL_DIR:-${HOME:?HOME is not set; set KOTEF_INSTALL_DIR}/.kotef/bin}
KOTEF_DOWNLOAD_BASE=${KOTEF_DOWNLOAD_BASE:-https://github.com/$KOTEF_REPO/releases/download}
KOTEF_DOWNLOAD_BASE=${KOTEF_DOWNLOAD_BASE%/}
KOTEF_DOWNLOAD_RETRIES=${KOTEF_DOWNLOAD_RETRIES:-4}
case $KOTEF_DOWNLOAD_RETRIES in
  *[!0-9]*) die "KOTEF_DOWNLOAD_RETRIES must be a number, not '$KOTEF_DOWNLOAD_RETRIES'" ;;
esac

# GitHub (and GitHub Enterprise) serve the newest release under releases/latest/download/ASSET;
# another mirror has a `latest` directory instead.
case $KOTEF_VERSION/$KOTEF_DOWNLOAD_BASE in
  latest/*/releases/download) release_url="${KOTEF_DOWNLOAD_BASE%/download}/latest/download" ;;
  *) release_url="$KOTEF_DOWNLOAD_BASE/$KOTEF_VERSION" ;;
esac

# The release asset for this machine: static musl builds on Linux, native ones on macOS.
detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case $arch in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) return 0 ;;
  esac
  case $os in
    Linux) echo "$arch-unknown-linux-musl" ;;
    Darwin)
      # An x86_64 shell under Rosetta on Apple silicon still gets the native binary.
      if [ "$arch" = x86_64 ] && [ "$(sysctl -n hw.optional.arm64 2>/dev/null || true)" = 1 ]; then
        arch=aarch64
      fi
      echo "$arch-apple-darwin"
      ;;
    *) return 0 ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    die "cannot verify the download: neither sha256sum nor shasum is installed"
  fi
}

# download URL FILE: prints the HTTP status; fails the script on anything but 200 or 404.
# Retries transient failures (connection trouble, 408, 429, 5xx) with a timeout per try.
download() {
  command -v curl >/dev/null 2>&1 || die "curl is needed to download kotef; install curl"
  code=$(curl --silent --show-error --location \
    --connect-timeout 10 --max-time 300 \
    --retry "$KOTEF_DOWNLOAD_RETRIES" --retry-delay 2 --retry-connrefused \
    --output "$2" --write-out '%{http_code}' "$1") || die "downloading $1 failed (curl exit $?)"
  case $code in
    200) ;;
    404) rm -f "$2" ;;
    *) die "downloading $1 failed: HTTP $code" ;;
  esac
  echo "$code"
}

# The source checkout to build when there is no release: this script's own, when it runs
# from one (the Action runs it from its checkout).
source_dir() {
  if [ -n "${KOTEF_SOURCE_DIR:-}" ]; then
    echo "$KOTEF_SOURCE_DIR"
    return 0
  fi
  case $0 in
    */install.sh)
      dir=$(cd "$(dirname "$0")/.." 2>/dev/null && pwd) || return 0
      if [ -f "$dir/Cargo.toml" ] && [ -f "$dir/src/main.rs" ]; then echo "$dir"; fi
      ;;
  esac
}

# Runs the installed binary once: an install that does not start is not an install.
check_installed() {
  [ -x "$KOTEF_INSTALL_DIR/kotef" ] || die "$1 left no executable $KOTEF_INSTALL_DIR/kotef"
  version_line=$("$KOTEF_INSTALL_DIR/kotef" --version 2>&1) \
    || die "$KOTEF_INSTALL_DIR/kotef does not run: $version_line"
  say "installed $version_line at $KOTEF_INSTALL_DIR/kotef"
  case ":${PATH:-}:" in
    *":$KOTEF_INSTALL_DIR:"*) ;;
    *) say "add $KOTEF_INSTALL_DIR to your PATH to run it as \`kotef\`" ;;
  esac
}

# No release for this ref: build kotef instead, and say so.
build_fallback() {
  say "no kotef release binary: $1"
  mkdir -p "$KOTEF_INSTALL_DIR"
  export KOTEF_INSTALL_DIR
  if [ -n "${KOTEF_BUILD_FALLBACK:-}" ]; then
    say "building kotef instead with KOTEF_BUILD_FALLBACK: $KOTEF_BUILD_FALLBACK"
    sh -c "$KOTEF_BUILD_FALLBACK" || die "the build fallback (KOTEF_BUILD_FALLBACK) failed"
  else
    src=$(source_dir)
    [ -n "$src" ] || die "no release to download and no source to build; pick a released \
KOTEF_VERSION, or build it yourself: cargo install --locked --git https://github.com/$KOTEF_REPO kotef"
    command -v cargo >/dev/null 2>&1 \
      || die "no release to download and cargo is not installed to build $src (https://rustup.rs)"
    KOTEF_SOURCE_DIR=$src
    export KOTEF_SOURCE_DIR
    say "building kotef instead from $src with cargo (this takes minutes)"
    root="$tmp/cargo-root"
    cargo install --locked --path "$src" --root "$root" --bin kotef \
      || die "cargo install --locked --path $src failed"
    cp "$root/bin/kotef" "$KOTEF_INSTALL_DIR/kotef.new.$$"
    chmod 0755 "$KOTEF_INSTALL_DIR/kotef.new.$$"
    mv -f "$KOTEF_INSTALL_DIR/kotef.new.$$" "$KOTEF_INSTALL_DIR/kotef"
  fi
  check_installed "the build fallback"
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t kotef-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

target=${KOTEF_TARGET:-$(detect_target)}
if [ -z "$target" ]; then
  build_fallback "no release is built for $(uname -s) $(uname -m)"
  exit 0
fi
asset="kotef-$target.tar.gz"
say "installing kotef $KOTEF_VERSION ($target) from $release_url"

code=$(download "$release_url/SHA256SUMS" "$tmp/SHA256SUMS")
if [ "$code" = 404 ]; then
  build_fallback "$release_url/SHA256SUMS was not found (HTTP 404): no release $KOTEF_VERSION"
  exit 0
fi
expected=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS")
if [ -z "$expected" ]; then
  build_fallback "release $KOTEF_VERSION lists no $asset in its SHA256SUMS"
  exit 0
fi

code=$(download "$release_url/$asset" "$tmp/$asset")
if [ "$code" = 404 ]; then
  build_fallback "$release_url/$asset was not found (HTTP 404)"
  exit 0
fi

actual=$(sha256_of "$tmp/$asset")
if [ "$actual" != "$expected" ]; then
  die "checksum mismatch for $asset: SHA256SUMS says $expected, the download is $actual; \
refusing to install it (nothing was installed)"
fi

mkdir "$tmp/unpacked"
tar -xzf "$tmp/$asset" -C "$tmp/unpacked" || die "could not unpack $asset"
[ -f "$tmp/unpacked/kotef" ] || die "$asset holds no \`kotef\` binary at its top"

mkdir -p "$KOTEF_INSTALL_DIR" || die "cannot create $KOTEF_INSTALL_DIR"
# Copy next to the target, then rename: a running or half-written kotef is never replaced
# in place.
cp "$tmp/unpacked/kotef" "$KOTEF_INSTALL_DIR/kotef.new.$$" || die "cannot write to $KOTEF_INSTALL_DIR"
chmod 0755 "$KOTEF_INSTALL_DIR/kotef.new.$$"
mv -f "$KOTEF_INSTALL_DIR/kotef.new.$$" "$KOTEF_INSTALL_DIR/kotef"
check_installed "$asset"
