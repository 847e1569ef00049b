#!/usr/bin/env python3
"""Prints the production Rust files over 600 lines and the functions over 120 lines, and holds
them to a ratchet: a file or function already over its limit may shrink but not grow past the
size recorded in `scripts/code-size.baseline`, and nothing new may cross a limit.

Production means `src/` of every crate (not `tests/`, `benches/` or `examples/`), and in a file
every line outside its `#[cfg(test)]` modules (`mod tests {…}`, `pub(crate) mod tests {…}`, with
other attributes between, and production code after them counted too); a file that opens (after its doc comment) with
`#![cfg(test)]` is a test module of its own and has none. A function is counted from its `fn` line to
its closing brace, comments and blank lines included.

    scripts/code-size.py                    # print both lists; exit 1 when the ratchet slips
    scripts/code-size.py --write-baseline   # record today's sizes (after shrinking something)
    scripts/code-size.py --self-test        # the parser on known Rust snippets
"""
import re
import sys
from pathlib import Path

from rust_source import blank_literals

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "scripts" / "code-size.baseline"
FILE_LIMIT = 600
FN_LIMIT = 120
FN_RE = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?"
    r"fn\s+([A-Za-z_][A-Za-z0-9_]*)"
)
TEST_ATTR_RE = re.compile(r"^\s*#\[cfg\(test\)\]\s*")
ATTR_RE = re.compile(r"^\s*#\[.*\]\s*$")
MOD_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+[A-Za-z_][A-Za-z0-9_]*\s*([{;])")


def production_files():
    for src in [ROOT / "src", *sorted(ROOT.glob("crates/*/src"))]:
        yield from sorted(src.rglob("*.rs"))


def production_lines(lines):
    """The lines of a file that are not test code: everything but its `#[cfg(test)]` modules
    (`mod tests {…}` in any visibility, `pub(crate) mod tests` included, wherever they stand,
    with production code after them still counted); none for a `#![cfg(test)]` file."""
    head = [l for l in lines if l.strip() and not l.lstrip().startswith("//")]
    if head and head[0].strip() == "#![cfg(test)]":
        return []
    code = blank_literals("\n".join(lines)).split("\n")
    out, k = [], 0
    while k < len(lines):
        end = test_module_end(code, k)
        if end is None:
            out.append(lines[k])
            k += 1
        else:
            k = end + 1
    return out


def test_module_end(code, k):
    """When a `#[cfg(test)]` module starts at line `k` of `code` (literals blanked), the index of
    its last line (its closing brace, or its `;` for `mod x;`); otherwise None."""
    m = TEST_ATTR_RE.match(code[k])
    if not m:
        return None
    j, rest = k, code[k][m.end():]
    while not rest.strip() or ATTR_RE.match(rest):  # more attributes or blank lines before `mod`
        j += 1
        if j >= len(code):
            return None
        rest = code[j]
    mod = MOD_RE.match(rest)
    if not mod:
        return None
    if mod.group(1) == ";":
        return j
    depth = 0
    for e in range(j, len(code)):
        for ch in rest[mod.start(1):] if e == j else code[e]:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return e
    return len(code) - 1


def functions(text):
    """(name, first line number, line count) of every function with a body."""
    code = blank_literals(text).split("\n")
    found = []
    for k, line in enumerate(code):
        m = FN_RE.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for j in range(k, len(code)):
            for ch in code[j]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and not opened and depth == 0:
                    break  # a declaration without a body (trait method, extern)
            else:
                if opened and depth == 0:
                    found.append((m.group(1), k + 1, j - k + 1))
                    break
                continue
            break
    return found


def measure():
    files, fns = {}, {}
    for f in production_files():
        rel = f.relative_to(ROOT).as_posix()
        lines = production_lines(f.read_text().split("\n"))
        if len(lines) > FILE_LIMIT:
            files[rel] = len(lines)
        for name, line, count in functions("\n".join(lines)):
            if count > FN_LIMIT:
                key = f"{rel}::{name}"
                fns[key] = max(count, fns.get(key, 0))
    return files, fns


def read_baseline():
    base = {}
    if BASELINE.is_file():
        for line in BASELINE.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                key, size = line.rsplit(None, 1)
                base[key] = int(size)
    return base


def write_baseline(files, fns):
    rows = [f"{k} {v}" for k, v in sorted({**files, **fns}.items())]
    BASELINE.write_text(
        "# Production files over 600 lines and functions over 120 lines, with their sizes when\n"
        "# last recorded (scripts/code-size.py --write-baseline). Each may shrink, none may grow,\n"
        "# and nothing new may join; the goal is an empty file.\n" + "\n".join(rows) + "\n"
    )


def self_test():
    src = '''fn a() {
    let s = "}}}";
    let c = '}';
    let r = r#"{ "x": 1 }"#;
    // }
    /* { */
}
trait T { fn b(&self); }
pub(crate) async fn c<T: Fn() -> ()>(x: T) -> Result<(), String> where T: Send {
    x();
    Ok(())
}
fn lifetimes<'a>(s: &'a str) -> &'a str { s }
#[cfg(test)]
mod tests {
    fn t() {}
}
'''
    lines = production_lines(src.split("\n"))
    got = functions("\n".join(lines))
    want = [("a", 1, 7), ("c", 9, 4), ("lifetimes", 13, 1)]
    if got != want:
        sys.exit(f"code-size self-test: got {got}, want {want}")
    test_file = "//! Tests.\n\n#![cfg(test)]\n\nfn helper() {\n}\n"
    if production_lines(test_file.split("\n")):
        sys.exit("code-size self-test: a `#![cfg(test)]` file counted as production")
    # Production code after a test module counts; `pub(crate) mod tests`, an attribute between
    # `#[cfg(test)]` and `mod`, a one-line `#[cfg(test)] mod x;` and a `"}"` inside are all test code.
    cases = [
        ("after a test module", "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\nfn b() {\n    1;\n}\n",
         ["fn a() {}", "fn b() {", "    1;", "}", ""]),
        ("pub(crate) mod tests", "fn a() {}\n#[cfg(test)]\npub(crate) mod tests {\n    fn t() { let s = \"}\"; }\n}\nfn b() {}\n",
         ["fn a() {}", "fn b() {}", ""]),
        ("attributes between", "fn a() {}\n#[cfg(test)]\n#[allow(dead_code)]\nmod tests {\n}\n", ["fn a() {}", ""]),
        ("one-line declaration", "#[cfg(test)] mod helpers;\nfn a() {}\n", ["fn a() {}", ""]),
        ("cfg(test) on something else", "#[cfg(test)]\nfn only_in_tests() {}\n", ["#[cfg(test)]", "fn only_in_tests() {}", ""]),
    ]
    for what, text, want in cases:
        got = production_lines(text.split("\n"))
        if got != want:
            sys.exit(f"code-size self-test ({what}): got {got}, want {want}")
    print("code-size self-test: ok")


def main():
    if "--self-test" in sys.argv:
        return self_test()
    files, fns = measure()
    if "--write-baseline" in sys.argv:
        write_baseline(files, fns)
        print(f"code-size: recorded {len(files)} files and {len(fns)} functions in {BASELINE.relative_to(ROOT)}")
        return
    base = read_baseline()
    bad = []
    print(f"production files over {FILE_LIMIT} lines: {len(files)}")
    for k, v in sorted(files.items(), key=lambda kv: -kv[1]):
        print(f"  {v:5} {k}")
    print(f"functions over {FN_LIMIT} lines: {len(fns)}")
    for k, v in sorted(fns.items(), key=lambda kv: -kv[1]):
        print(f"  {v:5} {k}")
    for k, v in {**files, **fns}.items():
        if k not in base:
            bad.append(f"{k} is {v} lines, over its limit and not in the baseline: split it")
        elif v > base[k]:
            bad.append(f"{k} grew from {base[k]} to {v} lines: it is over its limit, so it may only shrink")
    shrunk = [k for k in base if k not in files and k not in fns]
    if shrunk:
        print(f"now under the limit (run --write-baseline to drop them): {', '.join(shrunk)}")
    for b in bad:
        print(f"code-size: {b}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
