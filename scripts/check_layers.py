#!/usr/bin/env python3
"""Check the engine's layering (issue 19 item 6): no import cycle between the
modules of crates/hoplab-sim/src, and nothing under `wire` importing a
protocol module.

Nodes are the crate's top-level modules, and each submodule of `wire`
(`wire::tcp`, ...) and of `scenario` (`scenario::cost`, ...). Edges are `crate::x`, `super::x` and `use crate::{x, ..}`
references, and a parent's `pub use child::..` re-exports (so a cycle through
a re-exported name is seen), outside `#[cfg(test)]` code. Exit 0 when clean; 1 with the cycle
or the offending import listed. `--graph` prints the edges; `--src DIR`
checks another source tree.

Python 3 standard library only.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "hoplab-sim", "src")
# The wire layer's only allowed dependency outside itself: simulated time.
WIRE_MAY_IMPORT = {"time"}
# Modules whose submodules are nodes of their own: the wire formats, and
# the scenario's parts (so parse -> validate -> {schema, cost} -> model has
# no back-edge either).
SPLIT = ("wire", "scenario")

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
CFG_TEST_MOD_FILE = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;")
CFG_TEST_BLOCK = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*\{")
# `use child::...` / `pub use self::child::...`: a path relative to the file's own module
# (how a parent re-exports its submodules' items).
REL_USE = re.compile(r"\b(?:pub(?:\([^)]*\))?\s+)?use\s+(?:self\s*::\s*)?(" + IDENT + r")\s*::\s*")
# A single test-only item (`#[cfg(test)] use ...;`), besides whole test modules.
CFG_TEST_USE = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?use\s[^;]*;")
PATH_REF = re.compile(r"\b(crate|super)((?:\s*::\s*(?:super|" + IDENT + r"))*)\s*::\s*(\{)?")


def strip_comments_and_strings(src):
    """Blank out comments, string and char literals (keeping newlines)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * src.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', src[i:i + 10]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', src[i:]).group(1)
            end = src.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append('""')
            i = end
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", src[i:i + 4]) or (c == "'" and src.startswith("'\\", i)):
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", src[i:])
            if m:
                out.append("' '")
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def remove_test_blocks(src):
    """Drop `#[cfg(test)] use ...;` items and inline `#[cfg(test)] mod x { ... }` blocks."""
    src = CFG_TEST_USE.sub("", src)
    while True:
        m = CFG_TEST_BLOCK.search(src)
        if not m:
            return src
        depth, j = 1, m.end()
        while j < len(src) and depth:
            depth += {"{": 1, "}": -1}.get(src[j], 0)
            j += 1
        src = src[:m.start()] + src[j:]


def module_path(rel):
    """crate-relative module path of a source file, e.g. net/aodv/mod.rs -> [net, aodv]."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def node_of(path, modules):
    """Graph node of a path: its top-level module, or the submodule of wire
    or scenario it names (an item re-exported by the parent belongs to it)."""
    if not path:
        return None
    if path[0] in SPLIT and len(path) > 1 and (path[0], path[1]) in modules:
        return path[0] + "::" + path[1]
    return path[0]


def split_top(s):
    """Top-level comma-separated items of a `{...}` group's contents."""
    items, depth, cur = [], 0, []
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    items.append("".join(cur))
    return [i.strip() for i in items if i.strip()]


def targets(base, rest):
    """Module paths named by `base::rest`, where rest may be a `{...}` group."""
    rest = rest.strip()
    if rest.startswith("{"):
        depth, j = 0, 0
        for j, c in enumerate(rest):
            depth += {"{": 1, "}": -1}.get(c, 0)
            if depth == 0:
                break
        out = []
        for item in split_top(rest[1:j]):
            out.extend(targets(base, item))
        return out
    segs = []
    for seg in re.split(r"\s*::\s*", rest):
        m = re.match(IDENT, seg)
        if not m:
            if seg.startswith("{"):
                return targets(base + segs, seg)
            break
        segs.append(m.group(0))
        if m.end() < len(seg):
            break
    return [base + segs]


def references(modpath, is_mod_file, src, modules=frozenset()):
    """Module paths referenced from a file whose module path is `modpath`."""
    refs = []
    for m in REL_USE.finditer(src):
        child = m.group(1)
        if child not in ("crate", "super", "self") and tuple(modpath) + (child,) in modules:
            refs.extend(targets(list(modpath), src[m.start(1):m.start(1) + 4000].split(";", 1)[0]))
    for m in PATH_REF.finditer(src):
        kind, chain = m.group(1), m.group(2)
        segs = [s for s in re.split(r"\s*::\s*", chain) if s]
        if kind == "crate":
            base = []
        else:
            # `super` of a mod.rs/x.rs file is its parent; of an inline item, the file's module.
            base = list(modpath)
            base = base[:-1] if base else base
            while segs and segs[0] == "super":
                base = base[:-1]
                segs = segs[1:]
        if m.group(3):
            start = m.end() - 1
            refs.extend(targets(base + segs, src[start:start + 4000]))
        else:
            tail = src[m.end():m.end() + 200]
            nxt = re.match(IDENT, tail)
            refs.append(base + segs + ([nxt.group(0)] if nxt else []))
    return refs


def collect(root):
    files, test_files = {}, set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if "tests" in rel_dir.split(os.sep):
            continue
        for f in filenames:
            if f.endswith(".rs"):
                rel = os.path.normpath(os.path.join(rel_dir, f))
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    files[rel] = fh.read()
    # Files a parent declares as `#[cfg(test)] mod x;` are test code.
    for rel, text in files.items():
        here = os.path.dirname(rel) if os.path.basename(rel) in ("mod.rs", "lib.rs") else rel[:-3]
        for m in CFG_TEST_MOD_FILE.finditer(strip_comments_and_strings(text)):
            for cand in (os.path.join(here, m.group(1) + ".rs"), os.path.join(here, m.group(1), "mod.rs")):
                test_files.add(os.path.normpath(cand))
    return {rel: text for rel, text in files.items() if rel not in test_files}


def graph(root):
    edges = {}
    files = collect(root)
    modules = {tuple(module_path(rel)) for rel in files}
    for rel, text in files.items():
        modpath = module_path(rel)
        src = remove_test_blocks(strip_comments_and_strings(text))
        here = node_of(modpath, modules)
        for target in references(modpath, os.path.basename(rel) == "mod.rs", src, modules):
            there = node_of(target, modules)
            if here is None or there is None or there == here:
                continue
            edges.setdefault(here, {}).setdefault(there, set()).add(rel)
    return edges


def cycles(edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(edges) | {t for ts in edges.values() for t in ts}
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def one_cycle(edges, comp):
    """A concrete cycle inside a strongly connected component, by BFS."""
    start, members = comp[0], set(comp)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, {})):
                if w not in members:
                    continue
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, v, start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def main(argv):
    root = argv[argv.index("--src") + 1] if "--src" in argv else ROOT
    edges = graph(os.path.normpath(root))
    if "--graph" in argv:
        for v in sorted(edges):
            print(f"{v} -> {', '.join(sorted(edges[v]))}")
    problems = []
    for v in sorted(edges):
        if v == "wire" or v.startswith("wire::"):
            for w in sorted(edges[v]):
                if not (w == "wire" or w.startswith("wire::") or w in WIRE_MAY_IMPORT):
                    problems.append(f"wire layer imports a protocol module: {v} -> {w} (in {', '.join(sorted(edges[v][w]))})")
    for comp in cycles(edges):
        cyc = one_cycle(edges, comp)
        hops = []
        for a, b in zip(cyc, cyc[1:]):
            hops.append(f"  {a} -> {b} (in {', '.join(sorted(edges[a][b]))})")
        problems.append(f"import cycle among {len(comp)} modules ({', '.join(comp)}), e.g.:\n" + "\n".join(hops))
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"layers ok: {len(edges)} modules with imports, no cycle, wire imports no protocol")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
