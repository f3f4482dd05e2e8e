#!/usr/bin/env python3
"""Lists file-level import circles in a crate: which source files use items of which others.

    scripts/import-cycles.py crates/hark-tools [crates/hark-server ...]

A file's edges are its `crate::a::b` paths (in `use` lines and in code), each resolved to the
file of the longest module prefix that exists; `#[cfg(test)]` modules at the end of a file are
left out (a test may use anything). Prints each circle (a strongly connected group of more than
one file) and exits 1 when there is one, 0 when the files form a one-way graph.
"""
import pathlib
import re
import sys

PATH = re.compile(r"\bcrate((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
REEXPORT = re.compile(r"^pub use (?:self::|crate::)?([a-z_][a-z0-9_:]*)::(\{[^;]*\}|[A-Za-z_][A-Za-z0-9_]*)\s*;", re.M | re.S)
USE_GROUP = re.compile(r"\buse\s+crate::\{([^;]*)\};", re.S)


def modules(src: pathlib.Path) -> dict[tuple[str, ...], pathlib.Path]:
    mods = {}
    for f in src.rglob("*.rs"):
        rel = f.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        mods[tuple(parts)] = f
    return mods


SUPER = re.compile(r"\bsuper((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def own_path(f, mods):
    for path, file in mods.items():
        if file == f:
            return path
    return ()


def code_of(f: pathlib.Path) -> str:
    text = f.read_text()
    cut = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod \w+\s*\{", text, re.M)
    return text[: cut.start()] if cut else text


def root_names(src: pathlib.Path, mods) -> dict[str, pathlib.Path]:
    """Names the crate root re-exports (`pub use module::{A, B}`), each to its module's file."""
    names = {}
    for root in ("lib.rs", "main.rs"):
        f = src / root
        if not f.exists():
            continue
        for m in REEXPORT.finditer(code_of(f)):
            module = tuple(m.group(1).split("::"))
            items = m.group(2).strip("{}")
            for item in re.split(r",\s*", items):
                item = item.strip()
                name = item.split(" as ")[-1].strip().split("::")[-1]
                for n in range(len(module), 0, -1):
                    if module[:n] in mods:
                        names[name] = mods[module[:n]]
                        break
    return names


def edges(f: pathlib.Path, mods, roots) -> set[pathlib.Path]:
    text = code_of(f)
    # strip comments
    text = re.sub(r"//[^\n]*", "", text)
    paths = [m.group(1)[2:].split("::") for m in PATH.finditer(text)]
    # `super::x` from a/b.rs (module a::b) or a/b/mod.rs (module a::b) means a::x
    here = own_path(f, mods)
    if here:
        for m in SUPER.finditer(text):
            paths.append(list(here[:-1]) + m.group(1)[2:].split("::"))
    for group in USE_GROUP.finditer(text):
        for item in re.split(r",\s*", group.group(1)):
            head = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)", item)
            if head:
                paths.append(head.group(1).split("::"))
    out = set()
    for parts in paths:
        if len(parts) == 1 and parts[0] in roots:
            if roots[parts[0]] != f:
                out.add(roots[parts[0]])
            continue
        for n in range(len(parts), 0, -1):
            target = mods.get(tuple(parts[:n]))
            if target is not None:
                if target != f:
                    out.add(target)
                break
    return out


def circles(graph):
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(group)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return found


def main() -> int:
    bad = 0
    for crate in sys.argv[1:]:
        src = pathlib.Path(crate) / "src"
        mods = modules(src)
        files = set(mods.values())
        # a module file's own parent (mod.rs/lib.rs declaring it) is not an import
        roots = root_names(src, mods)
        lib = {src / "lib.rs", src / "main.rs"}
        # the crate root declares and re-exports every module: not an import of its own
        graph = {f: {t for t in edges(f, mods, roots) if t in files and t not in lib} for f in files}
        for group in circles(graph):
            bad += 1
            names = sorted(str(g.relative_to(src)) for g in group)
            print(f"{crate}: circle of {len(names)} files: {', '.join(names)}")
            for g in sorted(group):
                inside = sorted(str(t.relative_to(src)) for t in graph[g] if t in group)
                print(f"    {g.relative_to(src)} -> {', '.join(inside)}")
        if not any(True for _ in circles(graph)):
            print(f"{crate}: no file-level import circles ({len(files)} files)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
