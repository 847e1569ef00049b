#!/usr/bin/env python3
"""Checks every snippet a reader may copy from the README and docs/:

- YAML blocks are linted with actionlint as workflows (a block of steps, or a job without its
  `on:`, is wrapped in the smallest workflow that holds it), with `uses: kotef/kotef@vN`
  checked against this checkout's action.yml, so a misspelt or missing input fails;
- TOML blocks parse (tomllib) and use only the fields `kotef.toml` knows;
- every `kotef SUBCOMMAND --flag` (in code blocks and inline code) names a subcommand and
  flags that `kotef SUBCOMMAND --help` lists;
- every relative Markdown link points at a file that exists;
- a block after `<!-- copy of PATH ... -->` is PATH byte for byte, and the README's quick start
  (examples/workflow.yml, at most 30 lines) and docs/action.md's full workflow
  (.github/workflows/kotef.yml) are such copies, so the workflow a reader copies is the one CI
  lints and the quick-start test runs.

    scripts/check-docs.py [--kotef target/debug/kotef]    # exit 1 and list every problem
    scripts/check-docs.py --self-test                     # a deliberate mismatch must fail
"""
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"`(kotef [^`]+)`")
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")
# Top-level fields and tables of kotef.toml (crates/kotef-core/src/config.rs).
TOML_FIELDS = {
    "profile", "test_command", "trigger_label", "sandbox", "instructions", "verify_first",
    "setup", "setup_timeout_s", "limits", "model", "edit_format", "env", "allow", "test",
    "report",
}


COPY = re.compile(r"^<!-- copy of (\S+)[^\n]*-->\n```\w*\n(.*?)^```", re.M | re.S)
# (document, the file it must show, the most lines that file may have)
REQUIRED_COPIES = [
    ("README.md", "examples/workflow.yml", 30),
    ("docs/action.md", ".github/workflows/kotef.yml", None),
]


def check_copies(root, required=REQUIRED_COPIES):
    """Every `<!-- copy of PATH -->` block is PATH byte for byte; the required ones exist."""
    bad = []
    seen = set()
    for f in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        if not f.is_file():
            continue
        rel = f.relative_to(root).as_posix()
        text = f.read_text()
        for m in COPY.finditer(text):
            line = text[: m.start()].count("\n") + 1
            source = root / m.group(1)
            seen.add((rel, m.group(1)))
            if not source.is_file():
                bad.append(f"{rel}:{line}: the copy names {m.group(1)}, which does not exist")
                continue
            want = source.read_text()
            if m.group(2) != want:
                got, exp = m.group(2).splitlines(), want.splitlines()
                n = next((i for i, (a, b) in enumerate(zip(got, exp)) if a != b), min(len(got), len(exp)))
                bad.append(
                    f"{rel}:{line + 2 + n}: differs from {m.group(1)} at its line {n + 1} "
                    f"(doc: {got[n] if n < len(got) else '<end>'!r}, file: {exp[n] if n < len(exp) else '<end>'!r})"
                )
    for doc, source, most in required:
        if (doc, source) not in seen:
            bad.append(f"{doc}: no `<!-- copy of {source} -->` block")
        elif most is not None and (root / source).is_file():
            n = len((root / source).read_text().splitlines())
            if n > most:
                bad.append(f"{source}: {n} lines; the copy in {doc} must fit on a first screen ({most})")
    return bad


def self_test():
    """A synthetic tree whose README and docs show their files passes; one changed byte in a
    copy, a missing copy and a too-long quick start are each reported."""
    import tempfile as tf
    with tf.TemporaryDirectory() as t:
        root = Path(t)
        (root / "docs").mkdir()
        (root / "examples").mkdir()
        (root / ".github" / "workflows").mkdir(parents=True)
        short = "name: kotef\non: issues\n"
        full = "name: kotef\non: [issues, workflow_dispatch]\n"
        (root / "examples" / "workflow.yml").write_text(short)
        (root / ".github" / "workflows" / "kotef.yml").write_text(full)
        block = lambda path, body: f"<!-- copy of {path} -->\n```yaml\n{body}```\n"
        (root / "README.md").write_text("# x\n\n" + block("examples/workflow.yml", short))
        (root / "docs" / "action.md").write_text(block(".github/workflows/kotef.yml", full))
        if check_copies(root):
            print("self-test: matching copies were refused:", check_copies(root))
            return 1
        (root / "README.md").write_text("# x\n\n" + block("examples/workflow.yml", short.replace("issues", "issue")))
        bad = check_copies(root)
        if len(bad) != 1 or "differs from examples/workflow.yml" not in bad[0]:
            print(f"self-test: a one-byte mismatch was not reported: {bad}")
            return 1
        (root / "README.md").write_text("# x\n")
        bad = check_copies(root)
        if len(bad) != 1 or "no `<!-- copy of examples/workflow.yml -->`" not in bad[0]:
            print(f"self-test: a missing copy was not reported: {bad}")
            return 1
        long = "".join(f"# {i}\n" for i in range(31))
        (root / "examples" / "workflow.yml").write_text(long)
        (root / "README.md").write_text(block("examples/workflow.yml", long))
        bad = check_copies(root)
        if len(bad) != 1 or "31 lines" not in bad[0]:
            print(f"self-test: a 31-line quick start was not reported: {bad}")
            return 1
    print("check-docs self-test: a mismatched, missing or too long workflow copy is reported")
    return 0


def docs():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))


def as_workflow(block):
    text = textwrap.dedent(block)
    if text.lstrip().startswith("- "):
        steps = textwrap.indent(text, " " * 6)
        return f"on: workflow_dispatch\njobs:\n  snippet:\n    runs-on: ubuntu-latest\n    steps:\n{steps}"
    if re.search(r"^on:", text, re.M) is None and re.search(r"^jobs:", text, re.M):
        return "on: workflow_dispatch\n" + text
    if re.search(r"^jobs:", text, re.M):
        return text
    return None


def help_text(kotef, sub, cache={}):
    if sub not in cache:
        args = [kotef] + ([sub] if sub else []) + ["--help"]
        out = subprocess.run(args, capture_output=True, text=True, timeout=30)
        cache[sub] = out.stdout + out.stderr if out.returncode == 0 else None
    return cache[sub]


def check_command(kotef, line, where, bad):
    words = line.replace("\\\n", " ").split()
    if not words or words[0] != "kotef":
        return
    top = help_text(kotef, "")
    sub = words[1] if len(words) > 1 and not words[1].startswith("-") else ""
    if sub and top is not None and not re.search(rf"^\s+{re.escape(sub)}\b", top, re.M):
        bad.append(f"{where}: `kotef {sub}` is not a subcommand")
        return
    text = help_text(kotef, sub)
    if text is None:
        bad.append(f"{where}: `kotef {sub} --help` failed")
        return
    for w in words[2:]:
        if w.startswith("--"):
            flag = w.split("=")[0].rstrip(".,)`'\"")
            if not re.search(rf"(^|[\s,]){re.escape(flag)}\b", text, re.M):
                bad.append(f"{where}: `kotef {sub}` has no flag {flag}")


def main():
    if "--self-test" in sys.argv:
        return self_test()
    kotef = None
    if "--kotef" in sys.argv:
        kotef = sys.argv[sys.argv.index("--kotef") + 1]
    actionlint = shutil.which("actionlint")
    bad = check_copies(ROOT)
    workflows = []
    for f in docs():
        rel = f.relative_to(ROOT)
        text = f.read_text()
        for m in FENCE.finditer(text):
            lang, block = m.group(1), m.group(2)
            line = text[: m.start()].count("\n") + 1
            where = f"{rel}:{line}"
            if lang in ("yaml", "yml"):
                wf = as_workflow(block)
                if wf is not None:
                    workflows.append((where, wf))
            elif lang == "toml":
                try:
                    import tomllib
                except ModuleNotFoundError:
                    continue
                try:
                    data = tomllib.loads(block)
                except tomllib.TOMLDecodeError as e:
                    bad.append(f"{where}: TOML does not parse: {e}")
                    continue
                for key in data:
                    if key not in TOML_FIELDS:
                        bad.append(f"{where}: kotef.toml has no field `{key}`")
            elif kotef and lang in ("", "sh", "bash", "console"):
                for cmd in re.findall(r"(?m)^\s*(?:\$ )?(kotef .*)$", block):
                    check_command(kotef, cmd, where, bad)
        # Indented code lines and inline code.
        for n, l in enumerate(text.splitlines(), 1):
            if kotef and l.startswith("    kotef "):
                check_command(kotef, l.strip(), f"{rel}:{n}", bad)
            if kotef:
                for m in INLINE.finditer(l):
                    check_command(kotef, m.group(1), f"{rel}:{n}", bad)
            for m in LINK.finditer(l):
                target = m.group(1)
                if re.match(r"^[a-z]+:", target):
                    continue
                if not (f.parent / target).exists():
                    bad.append(f"{rel}:{n}: broken link {target}")
    if workflows:
        if actionlint is None:
            bad.append("actionlint is not installed: the YAML snippets were not checked")
        else:
            with tempfile.TemporaryDirectory() as t:
                wdir = Path(t) / ".github" / "workflows"
                wdir.mkdir(parents=True)
                names = {}
                # `uses: kotef/kotef@vN` is checked against this checkout's action.yml (its
                # inputs and their names), as `uses: ./`.
                shutil.copy(ROOT / "action.yml", Path(t) / "action.yml")
                # actionlint finds the repository root (and so `./`) by its .git.
                (Path(t) / ".git").mkdir()
                for i, (where, wf) in enumerate(workflows):
                    p = wdir / f"snippet{i}.yml"
                    p.write_text(re.sub(r"kotef/kotef@v[0-9][\w.\-]*", "./", wf))
                    names[p.name] = where
                out = subprocess.run([actionlint, "-no-color"], cwd=t, capture_output=True, text=True)
                for l in out.stdout.splitlines():
                    m = re.match(r"\.github/workflows/(snippet\d+\.yml):(\d+):\d+: (.*)", l)
                    if m:
                        bad.append(f"{names[m.group(1)]} (+{m.group(2)}): actionlint: {m.group(3)}")
    if bad:
        print("docs snippets that would not work as written:")
        for b in bad:
            print("  " + b)
        return 1
    print(f"check-docs: {len(workflows)} workflow snippets, every kotef command and link checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
