#!/usr/bin/env python3
"""Checks that kotef's production code touches files only through `kotef_tools::Tree` (or a
file allowed below, each with the reason it never opens a path inside a work tree after the
agent ran). A raw `std::fs` call on a workspace path would follow a link the repository or
its tests planted, open a FIFO, or read `/dev/zero` whole; this check makes writing one by
accident fail CI (SECURITY.md, "The work tree is hostile").

Test code is skipped: `#[cfg(test)]` modules, `tests/`, `benches/`, `examples/`, and the
test-support crate `kotef-testkit`.

    scripts/host-fs.py          # exit 1 and list each raw file-system call outside the list
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Raw calls that open, read, write, list or remove by path.
RAW = re.compile(
    r"\b(?:std::)?fs::(?:read|read_to_string|write|read_dir|remove_file|remove_dir|remove_dir_all"
    r"|create_dir|create_dir_all|copy|rename|metadata|symlink_metadata|read_link|canonicalize"
    r"|File|OpenOptions)\b"
    r"|\bFile::(?:open|create)\b|\bOpenOptions::new\b"
    r"|\.(?:is_file|is_dir|is_symlink|exists)\(\)"
)

# file → why its raw calls never touch a work tree the agent has run in.
ALLOWED = {
    "crates/kotef-tools/src/tree/mod.rs": "the one module that opens work-tree paths (by handle, no link followed)",
    "crates/kotef-tools/src/tree/walk.rs": "the same module's walk (directories by handle, no link followed)",
    "crates/kotef-tools/src/workdir.rs": "canonicalizes the root and checks each component of a model-given path before the tree opens it",
    "crates/kotef-tools/src/sandbox/mod.rs": "bwrap's own path and the operator's hidden paths, never the work tree",
    "crates/kotef-tools/src/sandbox/host.rs": "lstat of the host's system and toolchain paths for the sandbox's allow-list, never the work tree",
    "crates/kotef-tools/src/runner.rs": "canonicalizes the command's working directory (kotef's own workspace root)",
    "crates/kotef-tools/src/limits.rs": "the sandbox's resource limits: cgroup files and kotef's own temp dirs",
    "crates/kotef-core/src/process.rs": "reads this process's own /proc/self/stat (its argument area)",
    "crates/kotef-core/src/reaper.rs": "reads /proc/<pid>/stat to find kotef's own children, never a work tree",
    "crates/kotef-core/src/config.rs": "no file access in production code (the reader is passed in)",
    "crates/kotef-model/src/scripted.rs": "the operator's scripted-model file",
    "crates/kotef-github/src/config.rs": "the operator's server config and secret files",
    "crates/kotef-github/src/entry/server.rs": "the operator's data directory (job store, work dir, stale clones, not followed)",
    "crates/kotef-github/src/entry/startup.rs": "creates the operator's data and work directories before any clone",
    "crates/kotef-github/src/entry/leftovers.rs": "removes stale clone directories directly in the operator's work dir, never following a link",
    "crates/kotef-github/src/entry/action/mod.rs": "the runner's event file, and its outputs and step-summary files (opened O_NOFOLLOW)",
    "crates/kotef-github/src/outbound/workspace/mod.rs": "kotef's own git dir and empty HOME beside the work tree, checked before git runs",
    "crates/kotef-github/src/outbound/workspace/tamper.rs": "checks kotef's own git dir (lstat only, no link followed) before git runs",
    "crates/kotef-github/src/pipeline/record.rs": "creates new files (O_NOFOLLOW, never over one) in kotef's own transcript store (the runner's temp dir, the server's data dir); the work tree's transcript goes through the executor's Tree",
    "crates/kotef-github/src/pipeline/config.rs": "an operator's absolute config path (repository config comes from git, not the tree)",
    "src/scenario.rs": "builds a fresh workspace from the user's scenario before anything runs in it",
    "src/bin/kotef/cli.rs": "the user's --config file and --keep directory (the repository, and `kotef report`'s transcript and page, go through Tree)",
    "src/bin/kotef/serve.rs": "the operator's model-config file",
    "src/bin/kotef/main.rs": "the operator's own files",
    "src/bin/kotef/action.rs": "the runner's files (the Action's operator)",
}


def production_files():
    for base in [ROOT / "src", *sorted((ROOT / "crates").glob("*/src"))]:
        if "kotef-testkit" in base.parts:
            continue
        yield from sorted(base.rglob("*.rs"))


def strip_tests_and_comments(text):
    """Drops `#[cfg(test)]` items (the brace block after the attribute) and comments."""
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    while True:
        m = re.search(r"#\[cfg\(test\)\]", text[i:])
        if not m:
            out.append(text[i:])
            break
        start = i + m.start()
        out.append(text[i:start])
        brace = text.find("{", start)
        semi = text.find(";", start)
        if brace < 0 or (0 <= semi < brace):
            i = semi + 1
            continue
        depth, j = 0, brace
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        # Keep line numbers: replace the skipped block by its newlines.
        out.append("\n" * text[start : j + 1].count("\n"))
        i = j + 1
    return "".join(out)


def main():
    bad = []
    for f in production_files():
        rel = f.relative_to(ROOT).as_posix()
        if rel in ALLOWED:
            continue
        text = strip_tests_and_comments(f.read_text())
        for n, line in enumerate(text.splitlines(), 1):
            if RAW.search(line):
                bad.append(f"{rel}:{n}: {line.strip()}")
    if bad:
        print("raw file-system calls outside kotef_tools::Tree (use Tree, or add the file to")
        print("ALLOWED in scripts/host-fs.py with the reason it never opens a work-tree path):")
        for b in bad:
            print("  " + b)
        return 1
    print(f"host-fs: no raw file-system call outside Tree and {len(ALLOWED)} allowed files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
