#!/usr/bin/env python3
"""Checks that no crate of the workspace has an import cycle between its modules, the way
`cargo modules dependencies --acyclic` would: for every `crate::…`, `super::…` and `self::…`
path a module names, an edge goes from the module to the one named. Edges between a module and
its own ancestors are the tree itself and are left out; every other edge is lifted to the two
siblings under the modules' nearest common ancestor (`graph::snitch → sdd::issues` becomes
`graph → sdd`). A cycle among siblings is reported with the references that make it.

A folder listed in LAYERS (a crate's top level, or one of its modules) also has its children
in layers: a child may import only children of a lower layer, so two folders of one layer
(kotef-github's `inbound/` and `outbound/`) never import each other, and a leaf never imports a
folder. The root crate's agent graph (`src/graph/`) is layered memory < prompt < rules <
guards < nodes < the loop (`graph/mod.rs`, named `mod`, whose items used from below count as
imports of it, and the stop table it generates from the registries). A folder listed in ISOLATED has children that never import each other, except
its shared base: no guard imports another guard (`guards/mod.rs`, their parent, holds the
checkpoint types and registries; `guards/runner.rs`, the registry runner, is what a guard may
call to settle its stop). Paths through the crate root's re-exports are followed to the module
that defines the item. Tests inside a module count: a test reaches only what its module may.

    scripts/module-cycles.py              # all crates: exit 1 on a cycle or a layer broken
    scripts/module-cycles.py --graph      # also print each crate's sibling edges
    scripts/module-cycles.py --self-test  # deliberate inbound → outbound, memory → nodes and
                                          # guard → guard imports are each caught
"""
import re
import sys
from collections import defaultdict
from pathlib import Path

from rust_source import blank_comments, blank_literals

ROOT = Path(__file__).resolve().parent.parent
PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_BLOCK_RE = re.compile(r"\buse\s+((?:crate|super|self)::[^;]*);", re.S)
# A folder's children by layer, lowest first: an import must go to a strictly lower layer.
# Keyed by (crate, folder); the folder () is the crate's top level.
LAYERS = {
    ("kotef-github", ()): [
        {"text", "secret", "marker", "wire", "metrics"},
        {"inbound", "outbound"},
        {"queue", "config"},
        {"pipeline"},
        {"entry"},
    ],
    ("kotef", ("graph",)): [
        {"memory"},  # RunState and the facts derived from it
        {"prompt"},  # what the model is shown
        {"rules"},  # pure rules over the memory (budgets, pacing, tasks, endings)
        {"guards"},  # every decision that ends, redirects or succeeds a run
        {"nodes"},  # planner, researcher, coder (+ repair), verifier, snitch, and `llm`
        {"stop_table", "mod"},  # the loop (graph/mod.rs) and the table of every registry
    ],
}
# Folders whose children never import each other, except the shared base named here.
ISOLATED = {
    ("kotef", ("graph", "guards")): ("guard", {"runner"}),
}
# Explicit exceptions to the rules above: (crate, from, to) → why.
EXCEPTIONS = {
    # The nodes take the loop's `GraphContext` (the run's model, tools and limits) and return
    # its `StepResult`: the loop's interface to its nodes, defined beside the loop in
    # graph/mod.rs. No other layer uses an item of graph/mod.rs.
    ("kotef", ("graph", "nodes"), ("graph", "mod")): "the loop's interface to its nodes",
}
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
    """The text with its comments blanked (same length and lines; strings kept whole)."""
    return blank_comments(text)


def inline_modules(text):
    """Spans of the inline `mod name { … }` blocks of a file whose comments are blanked (a
    `super` inside one names the file's own module, not its parent)."""
    text = blank_literals(text)
    spans, stack, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        m = re.match(r"mod\s+\w+\s*\{", text[i:i + 80]) if c == "m" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if m:
            stack.append(i)
            i += len(m.group(0))
            continue
        if c == "{":
            stack.append(None)
        elif c == "}" and stack:
            start = stack.pop()
            if start is not None:
                spans.append((start, i))
        i += 1
    return spans


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


def analyse(name, src, extra=None):
    """Sibling edges of one crate; `extra` maps a module to code appended to it (self-test)."""
    files = {}
    for f in sorted(src.rglob("*.rs")):
        m = module_of(src, f)
        if m is not None:
            files[m] = strip_comments(f.read_text())
    for m, code in (extra or {}).items():
        files[m] = files.get(m, "") + "\n" + code
    modules = set(files)
    # Re-exports at the crate root: `pub use outbound::{client, …}` and items.
    alias = {}
    for head, tail in REEXPORT_RE.findall(files.get((), "")):
        names = [n.strip().split(" as ")[-1] for n in tail.strip("{}").split(",") if n.strip()]
        for n in names:
            alias[n] = tuple(head.split("::"))
    edges = defaultdict(set)  # (from, to) -> references

    def resolve(m, kind, segs, depth=0):
        if kind == "crate":
            base = ()
        elif kind == "super":
            up = 1
            while segs and segs[0] == "super":
                up, segs = up + 1, segs[1:]
            up -= depth  # the first `super`s leave the inline modules the path is written in
            if up <= 0:
                return m
            base = m[:-up]
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
        spans = inline_modules(text)

        def depth(pos):
            return sum(1 for s, e in spans if s < pos < e)

        refs = [(k, [s for s in p.split("::") if s], depth(x.start()))
                for x in PATH_RE.finditer(text) for k, p in [x.groups()]]
        for block in USE_BLOCK_RE.finditer(text):
            for item in expand_use(block.group(1)):
                k, *segs = item.split("::")
                refs.append((k, [s for s in segs if s not in ("*", "self")], depth(block.start())))
        for kind, segs, d in refs:
            t = resolve(m, kind, list(segs), d)
            if t != m and m[: len(t)] == t and any("mod" in layer for layer in LAYERS.get((name, t), [])):
                # An item of a layered folder's own file (graph/mod.rs) used from inside it:
                # an import of that file's layer, named `mod`.
                edges[(m[: len(t) + 1], t + ("mod",))].add(f"{'::'.join(m)} → {'::'.join(t)} (mod.rs)")
                continue
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


def layer_breaks(name, edges):
    """Sibling edges that break a folder's layers or isolation, with their references."""
    out = []
    for (a, b), refs in sorted(edges.items()):
        folder = a[:-1]
        if (name, a, b) in EXCEPTIONS:
            continue
        where = "::".join(folder) + "::" if folder else ""
        layers = LAYERS.get((name, folder))
        if layers:
            rank = {m: i for i, layer in enumerate(layers) for m in layer}
            ra, rb = rank.get(a[-1]), rank.get(b[-1])
            if ra is None or rb is None:
                missing = a[-1] if ra is None else b[-1]
                place = f"module `{where}{missing}`" if folder else f"top-level module `{missing}`"
                out.append((f"{name}: {place} is in no layer (add it to LAYERS)", refs))
            elif rb >= ra:
                out.append((f"{name}: layer broken: `{where}{a[-1]}` (layer {ra}) imports `{where}{b[-1]}` (layer {rb})", refs))
        isolated = ISOLATED.get((name, folder))
        if isolated and b[-1] not in isolated[1]:
            kind = isolated[0]
            out.append((f"{name}: {kind} `{where}{a[-1]}` imports {kind} `{where}{b[-1]}` (only {', '.join(sorted(isolated[1]))} is shared)", refs))
    return out


def self_test():
    src = ROOT / "crates" / "kotef-github" / "src"
    clean = layer_breaks("kotef-github", analyse("kotef-github", src))
    edges = analyse("kotef-github", src, {("inbound", "trigger"): "use crate::outbound::client::GitHub;"})
    broken = layer_breaks("kotef-github", edges)
    aliased = layer_breaks("kotef-github", analyse(
        "kotef-github", src, {("inbound", "signature"): "fn f(_: crate::GitHub) {}"}))
    want = "`inbound` (layer 1) imports `outbound` (layer 1)"
    if clean or not any(want in msg for msg, _ in broken) or not any(want in msg for msg, _ in aliased):
        sys.exit(f"module-cycles self-test failed: clean={clean} broken={broken} aliased={aliased}")
    print("module-cycles self-test: a deliberate inbound → outbound import (by path and through a root re-export) is caught")
    root = ROOT / "src"
    if layer_breaks("kotef", analyse("kotef", root)):
        sys.exit("module-cycles self-test failed: the root crate's graph is not clean as it is")
    planted = {
        "memory → nodes": ({("graph", "memory", "state"): "use crate::graph::nodes::planner::parse_decision;"},
                           "`graph::memory` (layer 0) imports `graph::nodes` (layer 4)"),
        "memory → nodes (relative)": ({("graph", "memory", "facts"): "fn f() { super::super::nodes::snitch::step; }"},
                                      "`graph::memory` (layer 0) imports `graph::nodes` (layer 4)"),
        "rules → the loop": ({("graph", "rules", "tasks"): "fn f(_: &super::super::GraphContext) {}"},
                             "`graph::rules` (layer 2) imports `graph::mod` (layer 5)"),
        "guard → guard": ({("graph", "guards", "budget"): "use crate::graph::guards::calls::CALL_PACED;"},
                          "guard `graph::guards::budget` imports guard `graph::guards::calls`"),
        "guard → guard (relative)": ({("graph", "guards", "no_progress"): "use super::oscillation::Oscillation;"},
                                     "guard `graph::guards::no_progress` imports guard `graph::guards::oscillation`"),
        "guard → guard (in its tests)": ({("graph", "guards", "reverify"): "mod tests { use super::super::calls::CALL_PACED; }"},
                                         "guard `graph::guards::reverify` imports guard `graph::guards::calls`"),
    }
    for what, (extra, want) in planted.items():
        found = layer_breaks("kotef", analyse("kotef", root, extra))
        if not any(want in msg for msg, _ in found):
            sys.exit(f"module-cycles self-test failed: a planted {what} import was not caught: {found}")
        print(f"module-cycles self-test: a planted {what} import fails: {[m for m, _ in found][0]}")
    ok = layer_breaks("kotef", analyse("kotef", root, {("graph", "guards", "budget"): "use super::runner::first_stop;"}))
    if ok:
        sys.exit(f"module-cycles self-test failed: a guard's import of the registry runner was refused: {ok}")
    print("module-cycles self-test: a guard's import of the shared base (guards/runner.rs) passes")


def main():
    if "--self-test" in sys.argv:
        return self_test()
    show = "--graph" in sys.argv
    bad = 0
    for name, src in crates():
        edges = analyse(name, src)
        for msg, refs in layer_breaks(name, edges):
            bad += 1
            print(msg)
            for r in sorted(refs)[:3]:
                print(f"    {r}")
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
