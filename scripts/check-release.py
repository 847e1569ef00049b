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
- What CHANGELOG.md lists under a released version was in that release: every commit it cites
  (a hex SHA of 7 to 40 digits in backticks or parentheses) is an ancestor of the release, and
  every repository file it names in backticks (`tests/foo.rs`, `scripts/{a,b}.py`) that exists
  now existed at the release. The release of version V is the tag vV when there is one, else
  the first commit whose Cargo.toml set V (so a clean checkout without tags works); the
  version being prepared (Cargo.toml's, untagged) is HEAD. A shallow clone without the history
  skips this part and says so.

    scripts/check-release.py              # exit 1 and list every mismatch
    scripts/check-release.py --self-test  # a copy with a deliberate mismatch must fail
"""
import re
import subprocess
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
    bad.extend(check_changelog_commits(root, v))
    return v, bad


SECTION = re.compile(r"^## \[?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\]?.*$", re.M)
CITED_SHA = re.compile(r"[`(]([0-9a-f]{7,40})[`)]")
CITED_PATH = re.compile(r"`([A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.{},\-]+)+)`")


def git(root, *args):
    out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def expand(path):
    """`a/{b,c}.rs` -> [a/b.rs, a/c.rs] (one brace group)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [path[: m.start()] + part + path[m.end():] for part in m.group(1).split(",")]


def release_commit(root, version, current):
    """The commit of release `version`: its tag, else the first commit setting it in Cargo.toml;
    HEAD for the version being prepared."""
    tagged = git(root, "rev-parse", "--verify", "--quiet", f"refs/tags/v{version}^{{commit}}")
    if tagged:
        return tagged
    if version == current:
        return git(root, "rev-parse", "HEAD")
    log = git(root, "log", "--format=%H", "--reverse", "-G",
              rf'^version = "{re.escape(version)}"', "--", "Cargo.toml")
    return log.splitlines()[0] if log else None


def sections(text):
    """(version, body) of every released section of a changelog."""
    heads = list(SECTION.finditer(text))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        yield m.group(1), text[m.end():end]


def check_changelog_commits(root, current):
    changelog = root / "CHANGELOG.md"
    if not changelog.is_file() or git(root, "rev-parse", "--git-dir") is None:
        return []
    if git(root, "rev-parse", "--is-shallow-repository") == "true":
        print("check-release: a shallow clone; CHANGELOG's releases were not checked against history")
        return []
    bad = []
    for version, body in sections(changelog.read_text()):
        release = release_commit(root, version, current)
        if release is None:
            bad.append(f"CHANGELOG.md: [{version}] has no tag v{version} and no commit sets it in Cargo.toml")
            continue
        for sha in sorted(set(CITED_SHA.findall(body))):
            full = git(root, "rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}")
            if full is None:
                continue  # a hex word that is not a commit here
            ok = subprocess.run(["git", "-C", str(root), "merge-base", "--is-ancestor", full, release],
                                capture_output=True).returncode == 0
            if not ok:
                bad.append(f"CHANGELOG.md: [{version}] cites commit {sha}, which is not in release {release[:12]}")
        for cited in sorted(set(CITED_PATH.findall(body))):
            for path in expand(cited):
                if not (root / path).exists() or git(root, "cat-file", "-e", f"HEAD:{path}") is None:
                    continue  # not a file of the repository (a runtime path such as .sdd/runs/x.md)
                if git(root, "cat-file", "-e", f"{release}:{path}") is None:
                    bad.append(f"CHANGELOG.md: [{version}] names {path}, which release {release[:12]} does not have (move the entry to a later version)")
    return bad


def self_test_history():
    """A repository whose release 1.0.0 lacks a later file and commit: the changelog naming
    them under 1.0.0 is refused, with a tag and without one; under 1.1.0 (being prepared) it
    passes."""
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        run = lambda *a: subprocess.run(["git", "-C", t, *a], check=True, capture_output=True, text=True)
        run("init", "-q", "-b", "main")
        run("config", "user.email", "t@example.com")
        run("config", "user.name", "t")
        (tmp / "Cargo.toml").write_text('[workspace.package]\nversion = "1.0.0"\n')
        (tmp / "CHANGELOG.md").write_text("## [1.0.0]\n\n- first\n")
        run("add", "-A")
        run("commit", "-q", "-m", "release 1.0.0")
        (tmp / "tests").mkdir()
        (tmp / "tests" / "later.rs").write_text("// later\n")
        (tmp / "Cargo.toml").write_text('[workspace.package]\nversion = "1.1.0"\n')
        run("add", "-A")
        run("commit", "-q", "-m", "later work")
        later = run("rev-parse", "--short=9", "HEAD").stdout.strip()
        wrong = f"## [1.1.0]\n\n- new\n\n## [1.0.0]\n\n- `tests/later.rs` (`{later}`)\n"
        right = f"## [1.1.0]\n\n- `tests/later.rs` (`{later}`)\n\n## [1.0.0]\n\n- first\n"
        for tagged in (False, True):
            if tagged:
                run("tag", "v1.0.0", "HEAD~1")
            (tmp / "CHANGELOG.md").write_text(wrong)
            bad = check_changelog_commits(tmp, "1.1.0")
            if len(bad) != 2 or not all("[1.0.0]" in b for b in bad):
                print(f"self-test: later work listed under 1.0.0 was not refused (tag: {tagged}): {bad}")
                return 1
            (tmp / "CHANGELOG.md").write_text(right)
            bad = check_changelog_commits(tmp, "1.1.0")
            if bad:
                print(f"self-test: a right changelog was refused (tag: {tagged}): {bad}")
                return 1
    print("check-release self-test: later work listed under a release is reported, with and without tags")
    return 0


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
    return self_test_history()


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
