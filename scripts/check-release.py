#!/usr/bin/env python3
"""Checks that the version, the tags and the docs agree, so the `uses: kotef/kotef@vN` a
newcomer copies resolves to a release (issue: "the first five minutes").

- `version` in Cargo.toml's `[workspace.package]` is X.Y.Z (a pre-release X.Y.Z-rc.N too);
  the release workflow publishes the tag vX.Y.Z, the moving tag vX and the images :X.Y.Z,
  :X.Y, :X and :latest.
- Every `kotef/kotef@REF` in the README, docs/, the workflows, action.yml and CHANGELOG must be
  `@vX`, `@vX.Y` or `@vX.Y.Z` of that version (or a branch/commit-free local `./`).
- Every `ghcr.io/kotef/kotef:TAG` must be `:X`, `:X.Y`, `:X.Y.Z` or `:latest`.
- Every `KOTEF_VERSION=vA.B.C` and `@vA.B.C` example must name the current version.
- CHANGELOG.md has a `## X.Y.Z` section.

    scripts/check-release.py              # exit 1 and list every mismatch
    scripts/check-release.py --self-test  # a copy with a deliberate mismatch must fail
"""
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["README.md", "CHANGELOG.md", "action.yml", "SECURITY.md"]
GLOBS = ["docs/**/*.md", ".github/workflows/*.yml", "examples/**/*.yml"]

USES = re.compile(r"kotef/kotef@(v[0-9][0-9A-Za-z.\-]*)")
IMAGE = re.compile(r"ghcr\.io/kotef/kotef:([0-9A-Za-z.\-]+)")
PINNED = re.compile(r"KOTEF_VERSION=(v[0-9][0-9A-Za-z.\-]*)")


def version(root):
    text = (root / "Cargo.toml").read_text()
    m = re.search(r"\[workspace\.package\][^\[]*?\nversion\s*=\s*\"([^\"]+)\"", text, re.S)
    if not m:
        sys.exit("check-release: no version in Cargo.toml's [workspace.package]")
    return m.group(1)


def files(root):
    out = [root / d for d in DOCS if (root / d).is_file()]
    for g in GLOBS:
        out.extend(sorted(root.glob(g)))
    return out


def check(root):
    v = version(root)
    core = v.split("-")[0]
    major, minor, _patch = core.split(".")
    refs = {f"v{major}", f"v{major}.{minor}", f"v{core}", f"v{v}"}
    images = {major, f"{major}.{minor}", core, v, "latest"}
    bad = []
    for f in files(root):
        rel = f.relative_to(root)
        for n, line in enumerate(f.read_text().splitlines(), 1):
            for m in USES.finditer(line):
                if m.group(1) not in refs:
                    bad.append(f"{rel}:{n}: kotef/kotef@{m.group(1)} (version {v}: use @v{major})")
            for m in IMAGE.finditer(line):
                if m.group(1) not in images:
                    bad.append(f"{rel}:{n}: ghcr.io/kotef/kotef:{m.group(1)} (version {v}: use :{major})")
            for m in PINNED.finditer(line):
                if m.group(1) not in (f"v{core}", f"v{v}"):
                    bad.append(f"{rel}:{n}: KOTEF_VERSION={m.group(1)} (version {v})")
    changelog = root / "CHANGELOG.md"
    if changelog.is_file() and not re.search(rf"^## \[?{re.escape(v)}\]?\b", changelog.read_text(), re.M):
        bad.append(f"CHANGELOG.md: no `## {v}` section")
    lock = root / "Cargo.lock"
    if lock.is_file():
        for m in re.finditer(r'name = "(kotef[a-z\-]*)"\nversion = "([^"]+)"', lock.read_text()):
            if m.group(2) != v:
                bad.append(f"Cargo.lock: {m.group(1)} {m.group(2)} (version {v}; run cargo build)")
    return v, bad


def self_test():
    """A synthetic tree that agrees passes; one deliberate mismatch in it is reported."""
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        (tmp / "Cargo.toml").write_text('[workspace.package]\nversion = "1.2.3"\n')
        (tmp / "CHANGELOG.md").write_text("# Changelog\n\n## 1.2.3\n")
        good = "    uses: kotef/kotef@v1\n    ghcr.io/kotef/kotef:1.2\n    KOTEF_VERSION=v1.2.3\n"
        (tmp / "README.md").write_text(good)
        _, bad = check(tmp)
        if bad:
            print("self-test: an agreeing tree was refused:", *bad, sep="\n  ")
            return 1
        (tmp / "README.md").write_text(good + "    uses: kotef/kotef@v2\n")
        _, bad = check(tmp)
        if len(bad) != 1 or "@v2" not in bad[0]:
            print(f"self-test: a deliberate @v2 was not reported: {bad}")
            return 1
    print("check-release self-test: a deliberate mismatch is reported")
    return 0


def main():
    if "--self-test" in sys.argv:
        return self_test()
    v, bad = check(ROOT)
    if bad:
        print(f"version {v} and the docs disagree:")
        for b in bad:
            print("  " + b)
        return 1
    print(f"check-release: version {v}, tags, images and docs agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
