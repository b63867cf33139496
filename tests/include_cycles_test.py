#!/usr/bin/python3
"""Include cycles between the project's units (a unit: a .h and its .cc).

A cycle is a set of units (a .h, its .cc, and its _internal.h) that reach
each other through #include "..."
(a.cc includes b.h, b.cc includes a.h). Such units cannot be understood,
tested or moved one at a time. The tree has none: any cycle fails. (KNOWN
held the ones the tree had when this test was written; issue 55 removed
them, and the list may only shrink.)
Usage: include_cycles_test.py SOURCE_DIR
"""
import os
import re
import sys

KNOWN = set()  # every cycle listed here when the test was written is gone
MODULES = ("common", "rpc", "storage", "query", "cluster", "server", "client")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def Unit(path):
    """The unit of a file: its path without the extension, an `_internal`
    header counted with the unit it is internal to (planner_internal.h is
    the planner's, shared by its .cc files)."""
    unit = path.rsplit(".", 1)[0]
    return unit[: -len("_internal")] if unit.endswith("_internal") else unit


def units(root):
    graph = {}
    for module in MODULES:
        for base, _, names in os.walk(os.path.join(root, module)):
            if "node_modules" in base:
                continue
            for name in names:
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.relpath(os.path.join(base, name), root)
                unit = Unit(path)
                with open(os.path.join(base, name), errors="replace") as f:
                    for included in INCLUDE.findall(f.read()):
                        target = Unit(included)
                        graph.setdefault(unit, set())
                        if target != unit and os.path.exists(os.path.join(root, included)):
                            graph[unit].add(target)
                graph.setdefault(unit, set())
    return graph


def cycles(graph):
    """Strongly connected components of more than one unit (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def main():
    found = set(cycles(units(sys.argv[1])))
    new = found - KNOWN
    gone = KNOWN - found
    for c in sorted(new, key=sorted):
        print("FAIL: a new include cycle: " + " <-> ".join(sorted(c)))
    for c in sorted(gone, key=sorted):
        print("FAIL: this cycle is gone; remove it from KNOWN: " + " <-> ".join(sorted(c)))
    if new or gone:
        return 1
    print(f"ok: no new include cycle ({len(found)} known ones left)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
