#!/usr/bin/env python3
"""Checks that the repository's markdown stands alone and renders: every relative link in every
markdown file (README.md, docs/*.md, topologies/README.md, ...) names a file or folder that
exists, and every `#anchor` (in the same file or another markdown file) names one of that file's
headings, as GitHub makes anchors of them. Links to the web (http:, https:, mailto:) are refused:
the docs must not depend on anything outside the repository. And every table starts with a header
and its delimiter row, so that a blank line inside a table (which splits it, the rest rendering
as text) is caught.

Usage: check_docs.py REPO_ROOT   (exit 0: all good; 1: a list of the problems)
       check_docs.py --self-test
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"(?<!\!)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"\!\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s*(?P<target>\S+)", re.M)
HEADING = re.compile(r"^(#{1,6})\s+(?P<title>.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "*.md"],
                             check=True, capture_output=True, text=True).stdout
        files = [f for f in out.splitlines() if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names if n.endswith(".md")]
    return sorted(f for f in files if not f.startswith("build"))


def strip_code(text):
    """The text without fenced code blocks and inline code spans (links there are examples)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            lines.append("")
            continue
        lines.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return "\n".join(lines)


def slug(title):
    """GitHub's anchor for a heading: lower case, markup and punctuation removed, spaces to '-'."""
    t = re.sub(r"`([^`]*)`", r"\1", title)
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = t.strip().lower()
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else HEADING.match(line)
                if not m:
                    continue
                s = slug(m.group("title"))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
        cache[path] = found
    return cache[path]


def table_problems(rel, text):
    """A table is a run of lines starting with '|'; its second line must be the delimiter row."""
    problems, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|"):
            start = i
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                i += 1
            if i - start < 2 or not re.match(r"^\s*\|(\s*:?-+:?\s*\|)+\s*$", lines[start + 1]):
                problems.append(f"{rel}:{start + 1}: a table without its header and delimiter row "
                                f"(a blank line inside a table splits it)")
        else:
            i += 1
    return problems


def check(root):
    problems, links = [], 0
    for rel in markdown_files(root):
        path = os.path.join(root, rel)
        text = strip_code(open(path, encoding="utf-8").read())
        problems += table_problems(rel, text)
        targets = [m.group("target") for m in LINK.finditer(text)]
        targets += [m.group("target") for m in IMAGE.finditer(text)]
        targets += [m.group("target") for m in REFDEF.finditer(text)]
        for target in targets:
            links += 1
            where = f"{rel}: link ({target})"
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                problems.append(f"{where}: points outside the repository")
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.abspath(dest).startswith(os.path.abspath(root) + os.sep) and dest != root:
                problems.append(f"{where}: leaves the repository")
                continue
            if not os.path.exists(dest):
                problems.append(f"{where}: no such file {os.path.relpath(dest, root)}")
                continue
            if anchor:
                if not dest.endswith(".md") or os.path.isdir(dest):
                    problems.append(f"{where}: an anchor into a file that is not markdown")
                elif anchor not in anchors(dest):
                    problems.append(f"{where}: no heading '#{anchor}' in {os.path.relpath(dest, root)}")
    return problems, links


def self_test():
    """The checker finds what it must: run on a small tree of good and broken links."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write("# Title\n## Two words `code`\n[ok](docs/a.md) [ok](docs/a.md#keys) [ok](#two-words-code)\n"
                    "[bad](docs/missing.md) [bad](docs/a.md#nothing) [bad](https://example.com)\n"
                    "```\n[not a link](nowhere.md)\n```\n`[not a link](nowhere.md)`\n"
                    "\n| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n")
        with open(os.path.join(root, "docs", "a.md"), "w") as f:
            f.write("# A\n## Keys\n[up](../README.md#title) [bad](../../outside.md)\n")
        problems, links = check(root)
        expected = ["README.md: link (docs/missing.md): no such file docs/missing.md",
                    "README.md: link (docs/a.md#nothing): no heading '#nothing' in docs/a.md",
                    "README.md: link (https://example.com): points outside the repository",
                    "docs/a.md: link (../../outside.md): leaves the repository",
                    "README.md:14: a table without its header and delimiter row (a blank line inside a table splits it)"]
        if sorted(problems) != sorted(expected) or links != 8:
            print("self-test failed:", problems, links)
            return 1
    print("self-test passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    problems, links = check(root)
    for p in problems:
        print(p)
    print(f"{links} links checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
