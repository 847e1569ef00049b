#!/bin/sh
# Packs kotef release assets the way the release workflow publishes them and the installer
# (scripts/install.sh) reads them. The release workflow and the installer's tests both use it,
# so what is tested is what is published.
#
#   scripts/package.sh TARGET BINARY DIST   writes DIST/kotef-TARGET.tar.gz holding `kotef`
#                                           (the binary), LICENSE and README.md at its top
#   scripts/package.sh --checksums DIST     writes DIST/SHA256SUMS for DIST/kotef-*.tar.gz
set -eu

die() {
  printf 'package.sh: error: %s\n' "$*" >&2
  exit 1
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$@"
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$@"
  else
    die "neither sha256sum nor shasum is installed"
  fi
}

root=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = "--checksums" ]; then
  [ $# -eq 2 ] || die "usage: package.sh --checksums DIST"
  dist=$2
  cd "$dist" || die "no directory $dist"
  set -- kotef-*.tar.gz
  [ -e "$1" ] || die "no kotef-*.tar.gz in $dist to checksum"
  # `sha256sum` prints `HASH  NAME`; sorted so the file is the same on every run.
  sha256 "$@" | LC_ALL=C sort -k 2 >SHA256SUMS.tmp
  mv SHA256SUMS.tmp SHA256SUMS
  cat SHA256SUMS
  exit 0
fi

[ $# -eq 3 ] || die "usage: package.sh TARGET BINARY DIST | package.sh --checksums DIST"
target=$1
binary=$2
dist=$3
case $target in
  *[!A-Za-z0-9_.-]* | '') die "odd target name '$target'" ;;
esac
[ -f "$binary" ] || die "no binary at $binary"
[ -x "$binary" ] || die "$binary is not executable"

mkdir -p "$dist"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT INT TERM
cp "$binary" "$stage/kotef"
chmod 0755 "$stage/kotef"
set -- kotef
for doc in LICENSE README.md; do
  if [ -f "$root/$doc" ]; then
    cp "$root/$doc" "$stage/$doc"
    set -- "$@" "$doc"
  fi
done
asset="kotef-$target.tar.gz"
# Plain names at the top of the archive: `kotef`, then the licence and the README.
tar -czf "$dist/$asset.tmp" -C "$stage" "$@" || die "could not pack $dist/$asset"
mv "$dist/$asset.tmp" "$dist/$asset"
echo "packed $dist/$asset"
