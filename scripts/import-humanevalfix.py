#!/usr/bin/env python3
"""Imports bug-fix tasks from HumanEvalFix (the Python part of HumanEvalPack: OctoPack,
Muennighoff et al., 2023; https://github.com/bigcode-project/octopack, MIT licence; built on
OpenAI's HumanEval, MIT licence) into benches/agent-tasks/hef-<id>-<function>/.

Each task is a one-file repository: `<function>.py` holds the function with the data set's
bug (its declaration, docstring and `buggy_solution`), `test_<function>.py` holds the data
set's own assertions as unittest methods (one assertion per method, so a partial fix shows as
fewer failing tests). `solution/` holds the canonical solution; `cheats/return-none/` a body
that returns nothing, which must fail. The selection is fixed (every sixth task id from 0), so
it was not picked by how kotef does on it; ids that are 6 modulo 12 are the held-out half
(`"held_out": true` in task.json), whose runs are not read while tuning.

    scripts/import-humanevalfix.py [--source humanevalpack.jsonl]

Without --source the data is read from the pinned commit of the octopack repository
(raw.githubusercontent.com).
"""
import argparse
import ast
import json
import shutil
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASKS = ROOT / "benches" / "agent-tasks"
COMMIT = "e17a8f6"
PATH = "evaluation/create/humaneval-x/data/python/data/humanevalpack.jsonl"
URL = f"https://raw.githubusercontent.com/bigcode-project/octopack/{COMMIT}/{PATH}"
STEP = 6


def load(source):
    if source:
        text = Path(source).read_text()
    else:
        with urllib.request.urlopen(URL, timeout=60) as r:
            text = r.read().decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_methods(test_src, entry):
    """The `check(candidate)` function's statements as unittest methods: each assertion its
    own method, the statements before it (helpers, set-up) repeated in each."""
    tree = ast.parse(test_src)
    check = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check")
    arg = check.args.args[0].arg
    prelude = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.Expr))
               and not (isinstance(n, ast.Assign) and any(
                   getattr(t, "id", "") == "METADATA" for t in n.targets))]
    helpers = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != "check"]
    methods = []
    setup = []
    for stmt in check.body:
        if isinstance(stmt, ast.Assert):
            # `assert True` lines (HumanEval's "this prints if this assert fails") test nothing.
            if isinstance(stmt.test, ast.Constant) and stmt.test.value is True:
                continue
            methods.append(setup + [stmt])
        else:
            setup.append(stmt)
    out = ["import math", "import unittest", "", f"from {entry} import {entry}", ""]
    for node in prelude + helpers:
        out += [ast.unparse(node), ""]
    out += ["", f"class Test{''.join(p.title() for p in entry.split('_'))}(unittest.TestCase):"]
    for i, body in enumerate(methods, 1):
        out.append(f"    def test_{i}(self):")
        if arg != entry:
            out.append(f"        {arg} = {entry}")
        for stmt in body:
            for line in ast.unparse(as_unittest(stmt)).splitlines():
                out.append(f"        {line}")
        out.append("")
    out += ["", 'if __name__ == "__main__":', "    unittest.main()", ""]
    return "\n".join(out), len(methods)


def as_unittest(stmt):
    """`assert a == b` as `self.assertEqual(a, b)`, so a failure shows both values; other
    assertions as `self.assertTrue(...)` with their message."""
    if not isinstance(stmt, ast.Assert):
        return stmt
    t = stmt.test
    self_attr = lambda name: ast.Attribute(ast.Name("self", ast.Load()), name, ast.Load())
    if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq):
        call = ast.Call(self_attr("assertEqual"), [t.left, t.comparators[0]], [])
    else:
        call = ast.Call(self_attr("assertTrue"), [t] + ([stmt.msg] if stmt.msg else []), [])
    return ast.Expr(call)


def write_task(row):
    num = int(row["task_id"].split("/")[1])
    entry = row["entry_point"]
    name = f"hef-{num:03d}-{entry.replace('_', '-')}"
    d = TASKS / name
    if d.exists():
        shutil.rmtree(d)
    (d / "repo").mkdir(parents=True)
    (d / "solution").mkdir()
    (d / "cheats" / "return-none").mkdir(parents=True)
    head = row["prompt"].strip("\n") + "\n"
    module = f"{entry}.py"
    (d / "repo" / module).write_text(head + row["buggy_solution"])
    (d / "solution" / module).write_text(head + row["canonical_solution"])
    (d / "cheats" / "return-none" / module).write_text(head + "    return None\n")
    tests, n = test_methods(row["test"], entry)
    (d / "repo" / f"test_{entry}.py").write_text(tests)
    task = {
        "goal": f"Fix the bug in `{entry}` ({module}): it must do what its docstring says. "
                f"The tests in test_{entry}.py fail.",
        "test_command": f"python3 -m unittest -q test_{entry}",
        "protected": [f"test_{entry}.py"],
        "kind": "fix",
        "held_out": num % (2 * STEP) == STEP,
        "source": {
            "dataset": "HumanEvalFix (HumanEvalPack, Python)",
            "task_id": row["task_id"],
            "bug_type": row["bug_type"],
            "url": f"https://github.com/bigcode-project/octopack/blob/{COMMIT}/{PATH}",
            "licence": "MIT (octopack: Copyright (c) 2023 Muennighoff; HumanEval: "
                       "Copyright (c) 2021 OpenAI)",
        },
    }
    (d / "task.json").write_text(json.dumps(task, indent=2) + "\n")
    return name, n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", help="a local copy of humanevalpack.jsonl")
    args = ap.parse_args()
    rows = load(args.source)
    picked = [r for r in rows if int(r["task_id"].split("/")[1]) % STEP == 0]
    for r in picked:
        name, n = write_task(r)
        print(f"{name}: {n} tests")
    print(f"{len(picked)} tasks written to {TASKS}", file=sys.stderr)


if __name__ == "__main__":
    main()
