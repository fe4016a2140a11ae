#!/usr/bin/env python3
"""Checks every relative link of the repository's Markdown documentation.

    python3 scripts/check-doc-links.py [FILE.md ...]

Without arguments it checks README.md, docs/*.md and the crates' README.md.
A link `[text](path)` or `[text](path#anchor)` must name a file or directory
that exists, relative to the file that links; an anchor (also `(#anchor)`
within the same file) must be the GitHub id of a heading of the Markdown file
it points into. Links to web addresses are not checked, nor anything inside
fenced code blocks. Prints each broken link as FILE:LINE and exits 1 if there
is one.
"""

import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def lines_outside_fences(path):
    """(line number, text) of every line not inside a fenced code block."""
    inside = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield number, line.rstrip("\n")


def slug(heading):
    """GitHub's id for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path, cache={}):
    """Every heading id of a Markdown file, with GitHub's -1, -2 suffixes for repeats."""
    if path not in cache:
        seen, ids = {}, set()
        for _, line in lines_outside_fences(path):
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                ids.add(base if n == 0 else f"{base}-{n}")
                seen[base] = n + 1
        cache[path] = ids
    return cache[path]


def check(path):
    """The broken links of one file, as messages."""
    problems = []
    for number, line in lines_outside_fences(path):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
                continue
            file_part, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = f"{os.path.relpath(path, ROOT)}:{number}"
            if not os.path.exists(resolved):
                problems.append(f"{where}: {target}: {os.path.relpath(resolved, ROOT)} does not exist")
                continue
            if anchor:
                if not resolved.endswith(".md") or os.path.isdir(resolved):
                    problems.append(f"{where}: {target}: an anchor into a file that is not Markdown")
                elif anchor not in anchors(resolved):
                    problems.append(f"{where}: {target}: no heading #{anchor} in {os.path.relpath(resolved, ROOT)}")
    return problems


def main(args):
    files = [os.path.abspath(a) for a in args] or sorted(
        [os.path.join(ROOT, "README.md")]
        + glob.glob(os.path.join(ROOT, "docs", "*.md"))
        + glob.glob(os.path.join(ROOT, "*", "README.md"))
    )
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p)
    print(f"{len(files)} files, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
