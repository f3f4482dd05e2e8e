#!/usr/bin/env python3
"""Joins pages.jsonl and rows.jsonl into the grounding runner's row format (one snapshot per
row: ../README.md), so crates/hark-ui/examples/grounding.rs can score this data:

    python3 bench/grounding/field/to_runner.py > /tmp/field_runner.jsonl     # ≈ 50 MB
    cargo run --release -p hark-ui --example grounding -- --data /tmp/field_runner.jsonl --split dev

`source` is "field-<desc_kind>:<kind> <lang>", so the runner's per-source lines are per
description kind. Usage: to_runner.py [pages.jsonl rows.jsonl] (default: the files here).
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
pages_f = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "pages.jsonl"
rows_f = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "rows.jsonl"
pages = {}
for line in open(pages_f, encoding="utf-8"):
    p = json.loads(line)
    pages[p["page"]] = p
out = sys.stdout
for line in open(rows_f, encoding="utf-8"):
    r = json.loads(line)
    p = pages[r["page"]]
    out.write(json.dumps({"page": r["page"], "split": p["split"], "snapshot": p["snapshot"], "description": r["description"],
                          "refs": r["refs"], "source": f"field-{r['desc_kind']}:{p['kind']} {r['lang']}"},
                         ensure_ascii=False, separators=(",", ":")) + "\n")
