#!/usr/bin/python3
"""No function of the project is longer than MAX_LINES lines.

A function that long does several things that want names of their own
(issue 55). Flat registration tables are the exception: the functions of
query/functions/ that add one family's functions to the registry, one
entry after another. A function is found as a brace block whose opening
line ends a declaration with ")" (or a constructor's initializer list);
strings and comments are blanked first.
Usage: function_length_test.py SOURCE_DIR
"""
import os
import re
import sys

MAX_LINES = 200
MODULES = ("common", "rpc", "storage", "query", "cluster", "server", "client")
# Registration tables: (path, a text their opening line holds).
TABLES = (
    ("query/functions/", "std::vector<ScalarFunction>*"),
    ("query/functions/", "std::vector<AggregateFunction>*"),
)
CONTROL = re.compile(r"^(if|for|while|switch|else|do|namespace|class|struct|enum|union)\b")
STRING = re.compile(r'"([^"\\]|\\.)*"|\'([^\'\\]|\\.)*\'')


def functions(path):
    """(first line, length, opening text) of each function in `path`."""
    lines = open(path, errors="replace").read().split("\n")
    stack = []
    signature = []  # the lines since the last statement, to read a declaration
    for i, raw in enumerate(lines):
        code = STRING.sub('""', raw).split("//")[0]
        signature.append(code.strip())
        for ch in code:
            if ch == "{":
                opening = " ".join(signature[-4:]).strip()
                stack.append((i, opening))
                signature = []
            elif ch == "}":
                if not stack:
                    continue
                start, opening = stack.pop()
                tail = opening.split(";")[-1].strip().lstrip("} ")
                if CONTROL.match(tail) or tail.startswith(("[", "=", "return")):
                    continue
                if ")" in tail or tail.startswith(":") or ") :" in tail:
                    yield start + 1, i - start + 1, tail
            elif ch == ";":
                signature = []


def main():
    root = sys.argv[1]
    failed = False
    for module in MODULES:
        for folder, _, files in os.walk(os.path.join(root, module)):
            for name in files:
                if not name.endswith((".cc", ".h")):
                    continue
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, root)
                for line, length, opening in functions(path):
                    if length <= MAX_LINES:
                        continue
                    if any(relative.startswith(p) and text in opening for p, text in TABLES):
                        continue
                    print(f"FAIL: {relative}:{line}: a function of {length} lines (at most "
                          f"{MAX_LINES}): {opening[:100]}")
                    failed = True
    if failed:
        print("Split it into named steps (see docs/architecture.md).")
        return 1
    print(f"no function over {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
