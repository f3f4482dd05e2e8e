#!/usr/bin/env python3
"""Checks pages.jsonl + rows.jsonl and prints the counts (README.md's tables).

Every ref of a row must be a named element of its page's snapshot (non-empty ref and name,
breadth-first, at most 255: an option of which_element); (page, description) is unique; every
page of a site is in one split. Usage: python3 check.py [pages.jsonl rows.jsonl] [--markdown]
"""

import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
args = [a for a in sys.argv[1:] if not a.startswith("--")]
md = "--markdown" in sys.argv
pages_f = Path(args[0]) if args else HERE / "pages.jsonl"
rows_f = Path(args[1]) if len(args) > 1 else HERE / "rows.jsonl"


def named(snapshot):
    out, queue = [], [snapshot["root"]]
    while queue and len(out) < 255:
        node = queue.pop(0)
        if node.get("ref") and node.get("name"):
            out.append(node["ref"])
        queue.extend(node.get("children", []))
    return set(out)


pages = {}
site_split = {}
errors = []
for line in open(pages_f, encoding="utf-8"):
    p = json.loads(line)
    pages[p["page"]] = p
    p["_named"] = named(p["snapshot"])
    if site_split.setdefault(p["site"], p["split"]) != p["split"]:
        errors.append(f"site {p['site']} is in two splits")
seen = set()
rows = []
for line in open(rows_f, encoding="utf-8"):
    r = json.loads(line)
    p = pages.get(r["page"])
    if p is None:
        errors.append(f"row on unknown page {r['page']}")
        continue
    bad = [x for x in r["refs"] if x not in p["_named"]]
    if bad:
        errors.append(f"{r['page']}: {r['description']!r}: {bad} not named elements")
    key = (r["page"], r["description"])
    if key in seen:
        errors.append(f"duplicate {key}")
    seen.add(key)
    r["split"], r["kind"], r["plang"] = p["split"], p["kind"], p["lang"]
    rows.append(r)

KINDS = ["name", "paraphrase", "role", "row", "ordinal", "state", "icon", "none"]
LANGS = ["en", "es", "fr", "de"]
SPLITS = ["train", "dev", "test"]


def table(header, lines):
    if md:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for l in lines:
            print("| " + " | ".join(map(str, l)) + " |")
    else:
        w = [max(len(str(x)) for x in col) for col in zip(header, *lines)]
        for l in [header] + lines:
            print("  ".join(str(x).rjust(n) for x, n in zip(l, w)))
    print()


c = collections.Counter((r["split"], r["lang"], r["desc_kind"]) for r in rows)
print(f"{len(pages)} pages, {len(site_split)} sites, {len({p['kind'] for p in pages.values()})} kinds, {len(rows)} rows, "
      f"{sum(1 for r in rows if not r['refs'])} none ({100 * sum(1 for r in rows if not r['refs']) / max(1, len(rows)):.1f} %), "
      f"{sum(1 for r in rows if r['lang'] != r['plang'])} with the caller in another language than the page\n")
for s in SPLITS:
    lines = [[lang] + [c[(s, lang, k)] for k in KINDS] + [sum(c[(s, lang, k)] for k in KINDS)] for lang in LANGS]
    lines.append(["all"] + [sum(c[(s, l, k)] for l in LANGS) for k in KINDS] + [sum(c[(s, l, k)] for l in LANGS for k in KINDS)])
    npages = sum(1 for p in pages.values() if p["split"] == s)
    nsites = sorted({p["site"] for p in pages.values() if p["split"] == s})
    print(f"{s}: {npages} pages, {len(nsites)} sites ({', '.join(nsites)})")
    table(["lang"] + KINDS + ["total"], lines)
kc = collections.Counter(r["kind"] for r in rows)
kp = collections.Counter(p["kind"] for p in pages.values())
ks = collections.defaultdict(set)
for p in pages.values():
    ks[p["kind"]].add(f"{p['site']}:{p['split']}")
table(["kind", "pages", "rows", "sites (split)"], [[k, kp[k], kc[k], " ".join(sorted(ks[k]))] for k in sorted(kp)])
# The runner's "baseline" classifier, re-done here: the option whose name appears word for word
# in the description (longest name first), else "none". A difficulty gauge, not a result.
import re  # noqa: E402


def words(s):
    return " " + " ".join(w for w in re.split(r"[^\w]+", s.lower()) if w) + " "


opts = {}
for p in pages.values():
    out, queue = [], [p["snapshot"]["root"]]
    while queue and len(out) < 255:
        node = queue.pop(0)
        if node.get("ref") and node.get("name"):
            out.append((node["ref"], words(node["name"])))
        queue.extend(node.get("children", []))
    opts[p["page"]] = sorted(out, key=lambda o: -len(o[1]))
right = collections.Counter()
for r in rows:
    d = words(r["description"])
    best = next((ref for ref, nw in opts[r["page"]] if nw.strip() and nw in d), None)
    right[(r["split"], r["desc_kind"])] += (best in r["refs"]) if r["refs"] else best is None
print("word-match baseline (top-1 accuracy):")
table(["split"] + KINDS + ["all"], [[s] + [f"{right[(s, k)] / max(1, c2):.2f}" for k in KINDS for c2 in [sum(c[(s, l, k)] for l in LANGS)]]
                                     + [f"{sum(right[(s, k)] for k in KINDS) / max(1, sum(c[(s, l, k)] for l in LANGS for k in KINDS)):.2f}"] for s in SPLITS])
ne = sorted(len(p["_named"]) for p in pages.values())
print(f"named elements per page: min {ne[0]}, median {ne[len(ne) // 2]}, max {ne[-1]}; "
      f"{sum(1 for n in ne if n >= 60)} pages with >= 60")
if errors:
    print(f"\n{len(errors)} ERRORS", *errors[:20], sep="\n")
    sys.exit(1)
print("ok: every ref is a named element; (page, description) unique; every site in one split")
