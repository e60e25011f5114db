#!/usr/bin/env python3
"""Keep the deck documentation generated from the deck schema.

  scripts/deck-docs.py STRATA           rewrite docs/strata-deck.schema.json and
                                        the key tables of docs/decks.md
  scripts/deck-docs.py STRATA --check   fail (exit 1) if either is out of date

STRATA is a built strata binary: `strata --print-schema` and
`strata --print-deck-reference` produce both from the keys the code declares
(each section's owner, e.g. io/RunKeys.cpp, and each app's *Params.cpp). In docs/decks.md each table
sits between `<!-- deck-keys: GROUP -->` and `<!-- end deck-keys -->`; the
prose around them is left alone.
"""
import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "docs", "strata-deck.schema.json")
DECKS = os.path.join(ROOT, "docs", "decks.md")
BLOCK = re.compile(r"<!-- deck-keys: (\S+) -->\n.*?<!-- end deck-keys -->\n", re.S)


def generated(strata, option):
    return subprocess.run([strata, option], check=True, capture_output=True, text=True).stdout


def with_tables(text, tables):
    """`text` with each deck-keys block replaced by the generated one of its group."""
    blocks = {m.group(1): m.group(0) for m in BLOCK.finditer(tables)}
    present = {m.group(1) for m in BLOCK.finditer(text)}
    missing = sorted(set(blocks) - present)
    if missing:
        sys.exit("deck-docs: docs/decks.md has no table for " + ", ".join(missing) +
                 ": add a '<!-- deck-keys: GROUP -->' / '<!-- end deck-keys -->' pair for each")
    unknown = sorted(present - set(blocks))
    if unknown:
        sys.exit("deck-docs: docs/decks.md has tables for groups the schema does not know: " + ", ".join(unknown))
    return BLOCK.sub(lambda m: blocks[m.group(1)], text)


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--check"):
        sys.exit(__doc__)
    strata, check = sys.argv[1], len(sys.argv) == 3
    with open(DECKS) as f:
        decks = f.read()
    want = {SCHEMA: generated(strata, "--print-schema"),
            DECKS: with_tables(decks, generated(strata, "--print-deck-reference"))}
    stale = []
    for path, text in want.items():
        have = open(path).read() if os.path.exists(path) else ""
        if have == text:
            continue
        if check:
            stale.append(path)
            sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), text.splitlines(True), path,
                                                       path + " (generated)"))
        else:
            with open(path, "w") as f:
                f.write(text)
            print("deck-docs: wrote " + os.path.relpath(path, ROOT))
    if stale:
        sys.exit("deck-docs: out of date with the deck schema: " +
                 ", ".join(os.path.relpath(p, ROOT) for p in stale) +
                 "; run scripts/deck-docs.py build/apps/strata")


if __name__ == "__main__":
    main()
