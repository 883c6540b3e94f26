#!/usr/bin/env python3
"""Prints the include cycles of failsim's C++ code: the strongly connected components (size > 1)
of the graph whose nodes are units (x.hpp and x.cpp together, as a reader sees a class) and whose
edges are `#include "..."` lines, with the rooms (folders) each component spans.

A header alone cannot be in a cycle that builds, so cycles are looked for between units: a.cpp
including b.hpp while b.cpp includes a.hpp ties a and b together. Exit status 1 when a cycle
spans two rooms (the target of issue 31), 0 otherwise. Usage: scripts/include-cycles.py [root]
"""
import os
import re
import sys

ROOTS = ["sim", "models", "analysis", "cli", "input", "result_format", "sweep"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def units(root):
    """Every unit (path without extension) and the units it includes."""
    graph = {}
    for top in ROOTS:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                stem, ext = os.path.splitext(name)
                if ext not in (".hpp", ".cpp", ".def"):
                    continue
                path = os.path.join(folder, name)
                unit = os.path.relpath(os.path.join(folder, stem), root)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                edges = graph.setdefault(unit, set())
                for inc in INCLUDE.findall(text):
                    if os.path.exists(os.path.join(root, inc)):
                        target = os.path.splitext(inc)[0]
                        if target != unit:
                            edges.add(target)
    return graph


def components(graph):
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    scc.append(n)
                    if n == node:
                        break
                out.append(sorted(scc))
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    cycles = [c for c in components(units(root)) if len(c) > 1]
    across = 0
    for c in sorted(cycles):
        rooms = sorted({os.path.dirname(u) for u in c})
        across += len(rooms) > 1
        print(f"cycle of {len(c)} units across {len(rooms)} room(s): {', '.join(rooms)}")
        for u in c:
            print(f"  {u}")
    print(f"{len(cycles)} cycle(s), {across} across rooms")
    return 1 if across else 0


if __name__ == "__main__":
    sys.exit(main())
