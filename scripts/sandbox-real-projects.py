#!/usr/bin/env python3
"""Runs real projects' own setup and tests through `kotef run` with the sandbox on and off, and
prints whether each passed: a toolchain the allow-list sandbox hides, or a download `setup`
cannot make through the egress proxy, shows as a project that passes without the sandbox and
fails with it. The model is scripted (verify, then done): no model call decides anything.

    scripts/sandbox-real-projects.py --kotef target/debug/kotef NAME=GIT_DIR ...

Each NAME must be one of PROJECTS below; GIT_DIR is a clone or a bare mirror of it.
"""
import argparse
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

# name -> (setup, test command); what a maintainer would write in kotef.toml.
PROJECTS = {
    "markupsafe": (
        "python3 -m venv .venv && .venv/bin/pip install -q -e . pytest",
        ".venv/bin/python -m pytest -q",
    ),
    "slugify": ("npm install --no-audit --no-fund --silent", "npx ava"),
    "itoa": ("cargo fetch", "cargo test --offline -q"),
    "more-itertools": (
        "python3 -m venv .venv && .venv/bin/pip install -q -e .",
        ".venv/bin/python -m unittest -q",
    ),
    "commander": ("npm install --no-audit --no-fund --silent", "npx jest --silent"),
    "click": (
        "python3 -m venv .venv && .venv/bin/pip install -q -e . pytest",
        ".venv/bin/python -m pytest -q",
    ),
}

MODEL = {
    "model": {
        "planner": [
            {"content": json.dumps({"next": "verifier", "reason": "run the project's tests"})},
            {"content": json.dumps({"next": "done", "reason": "measured"})},
        ]
    }
}


def run(kotef: str, name: str, src: str, sandbox: str) -> dict:
    setup, test = PROJECTS[name]
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / name
        subprocess.run(["git", "clone", "-q", src, str(repo)], check=True)
        (repo / "kotef.toml").write_text(
            f"sandbox = {json.dumps(sandbox)}\nsetup = {json.dumps(setup)}\n"
            f"test_command = {json.dumps(test)}\nsetup_timeout_s = 900\n"
        )
        model = Path(tmp) / "model.json"
        model.write_text(json.dumps(MODEL))
        start = time.monotonic()
        out = subprocess.run(
            [kotef, "run", "--json", "--repo", str(repo), "--goal", "Run the tests",
             "--model", f"scripted:{model}", "--time-budget-s", "1200"],
            capture_output=True, text=True,
        )
        took = time.monotonic() - start
        try:
            summary = json.loads(out.stdout)
        except json.JSONDecodeError:
            summary = {}
        return {
            "status": summary.get("terminal_status", "setup failed" if "setup" in out.stderr else "error"),
            "seconds": round(took, 1),
            "why": (summary.get("stop_reason") or (out.stderr.strip().splitlines() or [""])[-1])[:120],
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kotef", default="target/debug/kotef")
    ap.add_argument("projects", nargs="+", help="NAME=GIT_DIR")
    a = ap.parse_args()
    kotef = str(Path(a.kotef).resolve())
    if not shutil.which("bwrap"):
        raise SystemExit("bubblewrap is not installed")
    print("| project | sandbox | ending | seconds | stop reason |")
    print("|---|---|---|---:|---|")
    for item in a.projects:
        name, src = item.split("=", 1)
        for sandbox in ["bwrap", "none"]:
            r = run(kotef, name, src, sandbox)
            print(f"| {name} | {sandbox} | {r['status']} | {r['seconds']} | {r['why']} |", flush=True)


if __name__ == "__main__":
    main()
