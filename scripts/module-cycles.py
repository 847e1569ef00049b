#!/usr/bin/env python3
"""Checks that no crate of the workspace has an import cycle between its modules, the way
`cargo modules dependencies --acyclic` would: for every `crate::…`, `super::…` and `self::…`
path a module names, an edge goes from the module to the one named. Edges between a module and
its own ancestors are the tree itself and are left out; every other edge is lifted to the two
siblings under the modules' nearest common ancestor (`graph::snitch → sdd::issues` becomes
`graph → sdd`). A cycle among siblings is reported with the references that make it.

    scripts/module-cycles.py            # all crates: exit 1 on a cycle
    scripts/module-cycles.py --graph    # also print each crate's sibling edges
"""
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_BLOCK_RE = re.compile(r"\buse\s+((?:crate|super|self)::[^;]*);", re.S)
REEXPORT_RE = re.compile(r"^\s*pub\s+use\s+([A-Za-z_][A-Za-z0-9_:]*)::(\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*)\s*;", re.M)


def crates():
    for manifest in [ROOT / "Cargo.toml", *sorted(ROOT.glob("crates/*/Cargo.toml"))]:
        src = manifest.parent / "src"
        if (src / "lib.rs").is_file():
            yield manifest.parent.name if manifest.parent != ROOT else "kotef", src


def module_of(src, f):
    rel = f.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("lib", "mod", "main"):
        parts = parts[:-1]
    if parts and parts[0] == "bin":
        return None  # binaries are separate crates
    return tuple(parts)


def strip_comments(text):
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def expand_use(body):
    """`a::{b, c::{d}}` → ['a::b', 'a::c::d'] (enough for the paths' module parts)."""
    body = re.sub(r"\s+", "", body)
    out = []

    def walk(prefix, s):
        depth, start, items = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append(s[start:i])
                start = i + 1
        items.append(s[start:])
        for item in filter(None, items):
            if "{" in item:
                head, rest = item.split("{", 1)
                walk(prefix + head, rest[:-1])
            else:
                out.append(prefix + item)

    walk("", body)
    return out


def analyse(name, src):
    files = {}
    for f in sorted(src.rglob("*.rs")):
        m = module_of(src, f)
        if m is not None:
            files[m] = strip_comments(f.read_text())
    modules = set(files)
    # Re-exports at the crate root: `pub use outbound::{client, …}` and items.
    alias = {}
    for head, tail in REEXPORT_RE.findall(files.get((), "")):
        names = [n.strip().split(" as ")[-1] for n in tail.strip("{}").split(",") if n.strip()]
        for n in names:
            alias[n] = tuple(head.split("::"))
    edges = defaultdict(set)  # (from, to) -> references

    def resolve(m, kind, segs):
        if kind == "crate":
            base = ()
        elif kind == "super":
            base = m[:-1]
            while segs and segs[0] == "super":
                base, segs = base[:-1], segs[1:]
        else:
            base = m
        if kind == "crate" and segs and segs[0] in alias:
            target = alias[segs[0]]
            if target + (segs[0],) in modules:
                target = target + (segs[0],)
            segs = list(target) + segs[1:]
            base = ()
        path = base + tuple(segs)
        while path and path not in modules:
            path = path[:-1]
        return path

    for m, text in files.items():
        refs = [(k, [s for s in p.split("::") if s]) for k, p in PATH_RE.findall(text)]
        for body in USE_BLOCK_RE.findall(text):
            for item in expand_use(body):
                k, *segs = item.split("::")
                refs.append((k, [s for s in segs if s not in ("*", "self")]))
        for kind, segs in refs:
            t = resolve(m, kind, list(segs))
            if t == m or m[: len(t)] == t or t[: len(m)] == m:
                continue  # itself, an ancestor, or its own child
            i = 0
            while i < min(len(m), len(t)) and m[i] == t[i]:
                i += 1
            a, b = m[: i + 1], t[: i + 1]
            edges[(a, b)].add(f"{'::'.join(m) or name} → {'::'.join(t)}")
    return edges


def cycles(edges):
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    found, state, stack = [], {}, []

    def dfs(v):
        state[v] = 1
        stack.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == 1:
                found.append(stack[stack.index(w):] + [w])
            elif w not in state:
                dfs(w)
        stack.pop()
        state[v] = 2

    for v in sorted(graph):
        if v not in state:
            dfs(v)
    return found


def main():
    show = "--graph" in sys.argv
    bad = 0
    for name, src in crates():
        edges = analyse(name, src)
        if show:
            print(f"# {name}")
            for (a, b) in sorted(edges):
                print(f"  {'::'.join(a)} -> {'::'.join(b)}")
        found = cycles(edges)
        for c in found:
            bad += 1
            print(f"{name}: cycle {' → '.join('::'.join(p) for p in c)}")
            for a, b in zip(c, c[1:]):
                for r in sorted(edges[(a, b)])[:3]:
                    print(f"    {r}")
        if not found:
            print(f"{name}: {len({a for a, _ in edges} | {b for _, b in edges})} modules with cross edges, no cycle")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
