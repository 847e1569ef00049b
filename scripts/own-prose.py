#!/usr/bin/env python3
"""Checks that kotef's production code never decides anything by searching text kotef wrote
itself: a `.contains("still fails with")` on its own ending reason, a `.find("\\n### ⏳ ")` on
its own comment, a `.replace(` of its own truncation mark. Such code breaks silently when the
sentence is reworded; the fact belongs in a field, an enum or a type with a `Display`.

A needle is a string literal given to a text search (`contains`, `find`, `starts_with`,
`strip_prefix`, `replace`, `split_once`, ...). It is kotef's own prose when it occurs in a
string kotef writes: another production string literal (a `format!`, an `#[error(...)]`, a
constant; the parts between `{placeholders}`) or a template under `prompts/`. Needles shorter
than 4 non-blank characters are ignored, and so are regular expressions (`Regex::new`): what
a tool prints is fair to search. A match that must stay is allowed below with its reason.

Test code is skipped: `#[cfg(test)]` items, `tests/`, `benches/`, `examples/`, and the
test-support crate `kotef-testkit`.

    scripts/own-prose.py              # exit 1 and list each search of kotef's own prose
    scripts/own-prose.py --self-test  # proves it catches a planted search and allows the rest
"""
import re
import sys
import tempfile
from pathlib import Path

from rust_source import blank_bodies

ROOT = Path(__file__).resolve().parent.parent

# Text searches whose first argument is the needle.
SEARCH = re.compile(
    r"\.(?:contains|find|rfind|starts_with|ends_with|strip_prefix|strip_suffix|replace|replacen"
    r"|split_once|rsplit_once|split|rsplit|matches|match_indices|trim_start_matches"
    r"|trim_end_matches)\(\s*&?\s*$"
)
REGEX = re.compile(r"(?:Regex::new|RegexBuilder::new|regex!)\(\s*$")
# A literal compared whole is no search, and no text kotef writes either.
COMPARED = re.compile(r"(?:==|!=)\s*&?\s*$")
MIN_CHARS = 4

# (file, needle) → why this search of kotef's own text stays.
ALLOWED = {
    ("crates/kotef-github/src/outbound/client/mod.rs", "rate limit"): "GitHub's error message, not kotef's (kotef's own comment only shares the phrase)",
    ("crates/kotef-tools/src/classify.rs", "[killed: timed out"): "the runner's mark inside captured output, which the model reads as text; the classifier skips it so the mark is never taken for the error (the fact itself is `CommandResult::timed_out`)",
}


def production_files(root):
    files = []
    for base in [root / "src", *sorted((root / "crates").glob("*/src"))]:
        if "kotef-testkit" not in base.parts:
            files += sorted(base.rglob("*.rs"))
    tests = set()
    for f in files:
        home = f.parent if f.name in ("mod.rs", "lib.rs", "main.rs") else f.parent / f.stem
        for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", f.read_text()):
            tests |= {home / f"{m.group(1)}.rs", home / m.group(1) / "mod.rs"}
    return [f for f in files if f not in tests and not re.search(r"^#!\[cfg\(test\)\]", f.read_text(), re.M)]


ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def unescape(body):
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in ESCAPES:
            out.append(ESCAPES[n])
            i += 2
        elif n == "\n":  # line continuation: the newline and the next line's indent go
            i += 2
            while i < len(body) and body[i] in " \t\n":
                i += 1
        elif n == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif n == "u":
            end = body.index("}", i)
            out.append(chr(int(body[i + 3 : end], 16)))
            i = end + 1
        else:
            out.append(n)
            i += 2
    return "".join(out)


def lex(text):
    """The code with comments and string contents blanked (newlines kept), and the string
    literals as (start, value)."""
    code, lits = blank_bodies(text)
    return code, [(a, unescape(body) if kind == "str" else body) for a, body, kind in lits]


def test_ranges(code):
    """Spans of `#[cfg(test)]` items in blanked code."""
    spans = []
    for m in re.finditer(r"#\[cfg\(test\)\]", code):
        brace, semi = code.find("{", m.start()), code.find(";", m.start())
        if brace < 0 or 0 <= semi < brace:
            continue
        depth, j = 0, brace
        while j < len(code):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            if depth == 0:
                break
            j += 1
        spans.append((m.start(), j + 1))
    return spans


def scan(root):
    """Needles as (file, line, value) and writers as (file, line, value)."""
    needles, writers = [], []
    for f in production_files(root):
        rel = f.relative_to(root).as_posix()
        text = f.read_text()
        code, lits = lex(text)
        tests = test_ranges(code)
        for start, value in lits:
            if any(a <= start < b for a, b in tests):
                continue
            line = text.count("\n", 0, start) + 1
            before = code[max(0, start - 60) : start]
            if SEARCH.search(before):
                needles.append((rel, line, value))
            elif not REGEX.search(before) and not COMPARED.search(before):
                writers.append((rel, line, value))
    prompts = root / "prompts"
    if prompts.is_dir():
        for f in sorted(prompts.rglob("*")):
            if f.is_file():
                writers.append((f.relative_to(root).as_posix(), 1, f.read_text()))
    return needles, writers


def pieces(value):
    """The fixed parts of a writer: the text between `{placeholders}`."""
    return [p for p in re.split(r"\{[^{}]*\}", value.replace("{{", "{").replace("}}", "}")) if p]


def prose(needle):
    """Whether a needle reads as kotef's prose rather than a token of code or data: two words,
    or a word with Markdown or a mark kotef writes (`` ` ``, `#`, `[`, `*`, `…`), or any
    character beyond ASCII (an emoji), and at least 4 characters that are not blank."""
    if len("".join(needle.split())) < MIN_CHARS:
        return False
    words = re.findall(r"[A-Za-z]{2,}", needle)
    return (
        re.search(r"[A-Za-z]{2,}\s+\S*[A-Za-z]", needle) is not None
        or (len(words) == 1 and re.search(r"[`#*…]", needle) is not None)
        or re.search(r"[^\x00-\x7f]", needle) is not None
    )


def findings(root, allowed):
    """Each search of kotef's own prose outside `allowed`, and each allowed entry that no
    longer matches anything (a stale reason)."""
    needles, writers = scan(root)
    index = [(f, l, p) for f, l, v in writers for p in pieces(v)]
    out, used = [], set()
    for f, line, needle in needles:
        if not prose(needle):
            continue
        if (f, needle) in allowed:
            used.add((f, needle))
            continue
        hit = next(((wf, wl) for wf, wl, p in index if needle in p), None)
        if hit:
            out.append(f"{f}:{line}: searches {needle!r}, which kotef writes at {hit[0]}:{hit[1]}")
    out += [f"{f}: allowed to search {n!r}, but no longer does (remove it from ALLOWED)" for f, n in allowed if (f, n) not in used]
    return out


def main():
    bad = findings(ROOT, ALLOWED)
    if bad:
        print("code that searches text kotef wrote itself (carry the fact as data, or add the")
        print("(file, needle) to ALLOWED in scripts/own-prose.py with the reason it must stay):")
        for b in bad:
            print("  " + b)
        return 1
    print(f"own-prose: no search of kotef's own prose outside {len(ALLOWED)} allowed")
    return 0


PLANTED = {
    "src/ending.rs": 'fn reason(c: &str) -> String { format!("`{c}` still fails with: it") }\n',
    "src/check.rs": (
        'fn seen(r: &str) -> bool {\n'
        '    let url = "https://example.com"; // a comment with "quotes"\n'
        "    let _c = '\"';\n"
        '    r.contains("still fails with")\n'
        "}\n"
        'fn tool(out: &str) -> bool { out.contains("command not found") }\n'
        'fn re() { let _ = Regex::new(r"No rule to make target"); }\n'
        "#[cfg(test)]\nmod tests {\n    fn t(r: &str) -> bool { r.contains(\"`c` still fails\") }\n}\n"
    ),
    "crates/kotef-github/src/marker.rs": 'const P: &str = "<!-- kotef run -->";\nfn m(b: &str) -> bool { b.starts_with("<!-- kotef run") }\n',
    "prompts/coder.md": "The tests {{command}} printed: No rule to make target\n",
}


def self_test():
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for rel, text in PLANTED.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        got = findings(root, {("crates/kotef-github/src/marker.rs", "<!-- kotef run"): "planted", ("src/gone.rs", "a b c"): "stale"})
    want = [
        "src/check.rs:4: searches 'still fails with', which kotef writes at src/ending.rs:1",
        "src/gone.rs: allowed to search 'a b c', but no longer does (remove it from ALLOWED)",
    ]
    if got != want:
        print(f"own-prose self-test failed:\n  got  {got}\n  want {want}")
        return 1
    print("own-prose self-test: a planted search of kotef's own sentence is caught; tool output, regexes, tests and an allowed search pass; a stale allowance fails")
    return 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
