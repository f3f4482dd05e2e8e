#!/usr/bin/env python3
"""Lists the `use crate::X` (and `crate::X::` path) edges between the files of one crate's
`src/` and reports any cycle among files. Usage: scripts/module_cycles.py crates/hark-tools/src
Exit status 1 when a cycle is found."""
import os, re, sys

src = sys.argv[1] if len(sys.argv) > 1 else "crates/hark-tools/src"
mods = {}
for root, _, files in os.walk(src):
    for f in files:
        if f.endswith(".rs"):
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)[:-3]
            name = rel.replace(os.sep, "::")
            if name.endswith("::mod"):
                name = name[:-5]
            mods[name] = path
top = {m.split("::")[0] for m in mods}
edges = {}
for name, path in mods.items():
    text = open(path).read()
    # Leave out the test module at the end of a file: its imports are not the file's.
    cut = re.search(r"^#\[cfg\(test\)\]\s*\nmod tests", text, re.M)
    if cut:
        text = text[: cut.start()]
    text = re.sub(r"//[^\n]*", "", text)
    found = set()
    for m in re.finditer(r"crate::([a-z_][a-z0-9_]*)", text):
        t = m.group(1)
        if t in top and t != name.split("::")[0] and t != "lib":
            found.add(t)
    # `use crate::{a, b::C}` groups
    for g in re.finditer(r"use crate::\{([^}]*)\}", text, re.S):
        for item in re.findall(r"([a-z_][a-z0-9_]*)::", g.group(1)):
            if item in top and item != name.split("::")[0]:
                found.add(item)
    key = name.split("::")[0]
    if key == "lib":
        continue
    edges.setdefault(key, set()).update(found)

for k in sorted(edges):
    print(f"{k:14} -> {', '.join(sorted(edges[k])) or '(nothing)'}")

# cycle search (Tarjan)
index, low, stack, on, sccs, i = {}, {}, [], set(), [], [0]
def strong(v):
    index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in list(edges):
    if v not in index:
        strong(v)
if sccs:
    for c in sccs:
        print("cycle among:", ", ".join(c))
    sys.exit(1)
print("no cycle among files")
