#!/usr/bin/env python3
"""No user-facing text names one of the project's issue numbers ("issue 23's contract"): users
do not know them; a message names the doc section instead (docs/COMMANDS.md, "Errors").

Checked: every string literal of the C sources (runtime/, tools/, hostblas/: messages, help
texts); the comments of the installed headers runtime/include/clparity/*.h (the library's
reference); every string literal of the Python tools users run (tools/python/clparity.py,
tools/*.py, tools/plot_*, tools/check_deps, tools/export_torch.py); the non-comment lines of
tools/setup*.sh. Comments elsewhere may cite issues (they are for maintainers), and so may the
maintainers' own tools: tools/bench, tools/ci/ and tools/gpu/ measure the issues' targets.

    no_issue_numbers.py ROOT         scan the source tree at ROOT; list each hit, exit 1 on any
    no_issue_numbers.py --selftest   a literal that names an issue is found, a comment is not
"""
import io
import os
import re
import sys
import tokenize

ISSUE = re.compile(r"\bissues?\s*#?\s*\d+", re.I)


def c_texts(src, comments):
    """(line, text) of each C string literal (and each comment when comments is true)."""
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif src.startswith("//", i) or src.startswith("/*", i):
            j = src.find("\n" if src[i + 1] == "/" else "*/", i + 2)
            j = n if j < 0 else j + (0 if src[i + 1] == "/" else 2)
            if comments:
                yield line, src[i:j]
            line += src.count("\n", i, j)
            i = j
        elif c in "'\"":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            if c == '"':
                yield line, src[i + 1:j]
            line += src.count("\n", i, j)
            i = j + 1
        else:
            i += 1


def py_texts(src):
    for t in tokenize.generate_tokens(io.StringIO(src).readline):
        if t.type == tokenize.STRING:
            yield t.start[0], t.string


def sh_texts(src):
    for k, l in enumerate(src.splitlines(), 1):
        if not l.lstrip().startswith("#"):
            yield k, l


def files(root):
    for top in ("runtime", "tools", "hostblas"):
        for d, dirs, fs in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(d, root)
            if rel in ("tools/ci", "tools/gpu"):
                dirs[:] = []
                continue
            for f in sorted(fs):
                p = os.path.join(d, f)
                r = os.path.relpath(p, root)
                if f.endswith((".c", ".h")):
                    yield r, lambda s, r=r: c_texts(s, r.startswith("runtime/include/clparity/"))
                elif r.startswith("tools/") and r != "tools/bench" and (
                        f.endswith(".py") or f.startswith("plot_") or f in ("check_deps",)):
                    yield r, py_texts
                elif r.startswith("tools/setup") and f.endswith(".sh"):
                    yield r, sh_texts


def scan(root):
    hits = []
    for r, texts in files(root):
        with open(os.path.join(root, r), encoding="utf-8") as f:
            src = f.read()
        for line, text in texts(src):
            for m in ISSUE.finditer(text):
                hits.append(f"{r}:{line}: names {m.group(0)!r}: "
                            f"{text[max(0, m.start() - 50):m.end() + 30]!r}")
    return hits


def selftest():
    src = ('/* issue 23: a comment */\nstatic const char *m = "see issue 23\'s contract";\n'
           "// issues 21\nchar c = '\"'; const char *k = \"Issue #4\";\n")
    got = [(l, ISSUE.search(t).group(0)) for l, t in c_texts(src, False) if ISSUE.search(t)]
    assert got == [(2, "issue 23"), (4, "Issue #4")], got
    got = [l for l, t in c_texts(src, True) if ISSUE.search(t)]
    assert got == [1, 2, 3, 4], got
    py = '# issue 5\nx = "issue 6"\n"""doc\nissue 7"""\n'
    got = [l for l, t in py_texts(py) if ISSUE.search(t)]
    assert got == [2, 3], got
    assert not ISSUE.search("tissue 3") and not ISSUE.search("the issue is")
    print("selftest: ok")


def main():
    if sys.argv[1:] == ["--selftest"]:
        selftest()
        return 0
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    hits = scan(sys.argv[1])
    for h in hits:
        print("FAIL:", h)
    n = sum(1 for _ in files(sys.argv[1]))
    print(f"{n} files scanned, {len(hits)} user-facing text{'s' if len(hits) != 1 else ''} "
          "naming an issue number")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
