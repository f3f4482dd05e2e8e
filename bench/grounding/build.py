#!/usr/bin/env python3
"""Builds bench/grounding/rows.jsonl from the walked sources (see README.md).

Inputs:
  --miniwob  JSONL from miniwob_rows.mjs (client-js snapshots, reward-found targets)
  --demo     JSONL from demo_rows.mjs (client-js snapshots of the demo shop, hand descriptions)
  --shared   the shared grounding-data folder (Playwright aria snapshots: converted to snapshot
             JSON with tests/golden/generate.py's yaml_to_snapshot; hand descriptions below)
Output: one compact JSON object per line:
  {"page", "split", "snapshot", "description", "refs", "source"}
Every ref in `refs` is checked to be a named element of the snapshot (non-empty ref and name,
breadth-first, at most 255: an option of `which_element`); rows with no named element at all
are dropped (which_element answers None without asking a classifier).
"""

import argparse
import ast
import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# ------------------------------------------------------------------------------------------
# Splits: by page. A MiniWoB++ page is a task (all its seeds, whichever walker produced them);
# a demo-shop page is one state of the shop; a grounding-data tree is one page.
# ------------------------------------------------------------------------------------------
SPLITS = {
    # MiniWoB++ tasks
    "miniwob/click-button": "train",
    "miniwob/click-dialog": "train",
    "miniwob/click-test": "train",
    "miniwob/click-test-2": "train",
    "miniwob/click-widget": "train",
    "miniwob/focus-text-2": "train",
    "miniwob/buy-ticket": "dev",
    "miniwob/click-test-transfer": "dev",
    "miniwob/unicode-test": "test",
    "miniwob/click-dialog-2": "test",
    "miniwob/click-tab": "test",
    # shared grounding-data trees
    "grounding-data/saucedemo-inventory": "train",
    "grounding-data/signin-form-filled": "train",
    "grounding-data/todomvc-one-checked": "dev",
    "grounding-data/the-internet-login": "dev",
    "grounding-data/demoblaze-cart-table": "test",
    # demo shop states
    "demo/search": "dev",
    "demo/checkout": "dev",
    "demo/home": "test",
    "demo/cart": "test",
    "demo/ordered": "test",
    "demo/error": "test",
}

# ------------------------------------------------------------------------------------------
# Hand-written descriptions for shared/grounding-data/snapshots/*.yaml. A target is a ref
# ("e23") or `role "name"` with an optional `#k` (the k-th such named element, 1-based, in
# breadth-first order). [] = nothing on screen fits ("none").
# ------------------------------------------------------------------------------------------
HAND = {
    "saucedemo-inventory": [
        ("open the menu", ["s5e12", "s5e13"]),
        ("the hamburger menu button", ["s5e12", "s5e13"]),
        ("sort by price, cheapest first", ["s5e27"]),
        ("sort by price high to low", ["s5e28"]),
        ("sort the names from Z to A", ["s5e26"]),
        ("add the backpack to the cart", ["s5e44"]),
        ("add the bike light", ["s5e56"]),
        ("the onesie's add to cart button", ["s5e92"]),
        ("put the bolt t-shirt in my basket", ["s5e68"]),
        ("remove the jacket from my cart", ["s5e80"]),
        ("the fleece jacket", ["s5e71", "s5e72", "s5e75"]),
        ("the red t-shirt", ["s5e95", "s5e96", "s5e99"]),
        ("the first add to cart button", ["s5e44"]),
        ("the last add to cart button", ["s5e104"]),
        ("the 3rd add to cart button", ["s5e68"]),
        ("Sauce Labs on Twitter", ["s5e108"]),
        ("their LinkedIn page", ["s5e112"]),
        ("the facebook link", ["s5e110"]),
        ("the checkout button", []),
        ("the search box", []),
        ("add the water bottle to my cart", []),
        ("the login button", []),
        ("the instagram link", []),
        ("remove the backpack", []),
    ],
    "signin-form-filled": [
        ("the email field", ["e23"]),
        ("the email address box", ["e23"]),
        ("the password box", ["e30"]),
        ("sign me in", ["e35"]),
        ("the sign in button", ["e35"]),
        ("log in", ["e35"]),
        ("I forgot my password", ["e37"]),
        ("create an account", ["e40"]),
        ("register", ["e40"]),
        ("go back home", ["e6", "e9"]),
        ("the welcome heading", ["e14"]),
        ("show my password", []),
        ("the remember me checkbox", []),
        ("sign in with Google", []),
        ("the username field", []),
    ],
    "the-internet-login": [
        ("the username field", ["e18"]),
        ("the user name box", ["e18"]),
        ("the password field", ["e22"]),
        ("log me in", ["e23", "e24"]),
        ("the login button", ["e23", "e24"]),
        ("close the message", ["e5"]),
        ("dismiss the alert", ["e5"]),
        ("the page title", ["e10"]),
        ("the Elemental Selenium link", ["e29"]),
        ("the fork me on GitHub ribbon", ["e7"]),
        ("the sign up button", []),
        ("forgot password link", []),
        ("the remember me box", []),
        ("the logout button", []),
    ],
    "todomvc-one-checked": [
        ("the new todo field", ["e8"]),
        ("where do I type a new task", ["e8"]),
        ("mark everything as done", ["e43", "e44"]),
        ("the second travel to Paris", ["e66", "e67"]),
        ("the first todo's checkbox", ["e48"]),
        ("tick off learn piano", ["e62"]),
        ("the piano item's checkbox", ["e62"]),
        ("delete the completed todo", ["e68"]),
        ("clear completed", ["e69"]),
        ("remove all the finished ones", ["e69"]),
        ("show only the active ones", ["e57"]),
        ("the completed filter", ["e59"]),
        ("show all todos", ["e55"]),
        ("the real TodoMVC app link", ["e3"]),
        ("Remo's profile link", ["e39"]),
        ("the edit button", []),
        ("the due date field", []),
        ("delete learn piano", []),
        ("the third checkbox in the footer", []),
    ],
    "demoblaze-cart-table": [
        ("place the order", ['button "Place Order"']),
        ("check out", ['button "Place Order"']),
        ("delete the Nokia", ['link "Delete"#2', 'cell "Delete"#2']),
        ("remove the Nexus from my cart", ['link "Delete"#1', 'cell "Delete"#1']),
        ("the delete link in the last row", ['link "Delete"#2', 'cell "Delete"#2']),
        ("the cart", ['link "Cart"']),
        ("log in", ['link "Log in"']),
        ("sign up", ['link "Sign up"']),
        ("create an account", ['link "Sign up"']),
        ("the contact link", ['link "Contact"']),
        ("go to the home page", ['link "Home (current)"']),
        ("the about us link", ['link "About us"']),
        ("the order total", ['heading "1470"', 'heading "Total"']),
        ("the store logo", ['link "PRODUCT STORE"']),
        ("the last row of the table", ['row "Nokia lumia 1520 820 Delete"']),
        ("the second product in the cart", ['row "Nokia lumia 1520 820 Delete"', 'cell "Nokia lumia 1520"']),
        ("the Nexus 6 row", ['row "Nexus 6 650 Delete"', 'cell "Nexus 6"']),
        ("the price of the Nexus", ['cell "650"']),
        ("the quantity field", []),
        ("apply a coupon", []),
        ("the logout link", []),
        ("delete the iPhone", []),
        ("the third product in the cart", []),
    ],
}


def load_yaml_converter():
    """tests/golden/generate.py's yaml_to_snapshot (and its helpers), without importing the
    module (it needs pipecat): the function definitions are compiled from its source."""
    path = REPO / "tests" / "golden" / "generate.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    keep = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in ("_parse_head", "yaml_to_snapshot"):
            keep.append(node)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in ("_LINE", "_STATE_MAP") for t in node.targets
        ):
            keep.append(node)
    module = ast.Module(body=keep, type_ignores=[])
    scope = {"re": __import__("re")}
    exec(compile(module, str(path), "exec"), scope)
    return scope["yaml_to_snapshot"]


def named(snapshot):
    """The named elements, as which_element sees them: [(ref, role, name)], BFS, <= 255."""
    out, queue = [], collections.deque([snapshot["root"]])
    while queue and len(out) < 255:
        node = queue.popleft()
        if node.get("ref") and node.get("name"):
            out.append((node["ref"], node.get("role", ""), node["name"]))
        children = node.get("children")
        if isinstance(children, list):
            queue.extend(c for c in children if isinstance(c, dict))
    return out


def number_refs(snapshot):
    """Gives refs e1, e2, … (document order) to the non-text nodes of a tree that has none
    (a plain aria snapshot), as Playwright's snapshot would."""
    counter = [0]

    def walk(node):
        if node.get("role") != "text":
            counter[0] += 1
            node["ref"] = f"e{counter[0]}"
        for child in node.get("children", []):
            walk(child)

    walk(snapshot["root"])


def resolve(target, options, where):
    refs = {o[0] for o in options}
    if target in refs:
        return target
    spec, _, k = target.partition("#")
    k = int(k) if k else 1
    role, _, name = spec.partition(" ")
    name = name.strip('"')
    hits = [o[0] for o in options if o[1] == role and o[2] == name]
    if len(hits) < k:
        sys.exit(f"{where}: target {target!r} is not a named element of the snapshot")
    return hits[k - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--miniwob", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--out", default=str(HERE / "rows.jsonl"))
    a = ap.parse_args()

    rows, dropped = [], collections.Counter()

    def emit(page, snapshot, description, refs, source):
        options = named(snapshot)
        if not options:
            dropped[f"{page}: no named element"] += 1
            return
        names = {o[0] for o in options}
        bad = [r for r in refs if r not in names]
        if bad:
            sys.exit(f"{page}: {description!r}: refs {bad} are not named elements")
        if page not in SPLITS:
            sys.exit(f"{page}: no split assigned (add it to SPLITS)")
        rows.append({"page": page, "split": SPLITS[page], "snapshot": snapshot,
                     "description": description, "refs": refs, "source": source})

    # 1. MiniWoB++ pages walked with client-js; targets found by the task's reward.
    for line in open(a.miniwob, encoding="utf-8"):
        r = json.loads(line)
        emit(r["page"], r["snapshot"], r["description"], r["refs"],
             f"miniwob:{r['task']} seed={r['seed']} client-js, reward-graded")

    # 2. The demo shop, walked with client-js; hand-written descriptions.
    for line in open(a.demo, encoding="utf-8"):
        r = json.loads(line)
        emit(r["page"], r["snapshot"], r["description"], r["refs"], f"demo:{r['page']} hand-written")

    # 3. shared/grounding-data.
    shared = Path(a.shared)
    to_snapshot = load_yaml_converter()
    for r in map(json.loads, open(shared / "miniwob-rendered" / "miniwob_aria_snapshots.jsonl",
                                  encoding="utf-8")):
        # Graded rows with a rewarded target only: a row without one is a task the trial
        # clicks could not solve (two-step, or the target has no node), not a true "none".
        if not r.get("graded_by_trial_click") or not r.get("target_refs"):
            continue
        snap = to_snapshot(r["snapshot"], 1767232800000 + r["seed"])
        names = {o[0] for o in named(snap)}
        refs = [x for x in r["target_refs"] if x in names]
        if not refs:
            dropped[f"grounding-data miniwob {r['task']}: target unnamed (not an option)"] += 1
            continue
        emit(f"miniwob/{r['task']}", snap, r["utterance"], refs,
             f"grounding-data:miniwob_aria_snapshots {r['task']} seed={r['seed']} "
             "Playwright aria snapshot, reward-graded")
    for i, (tree, descriptions) in enumerate(sorted(HAND.items())):
        text = (shared / "snapshots" / f"{tree}.yaml").read_text(encoding="utf-8")
        snap = to_snapshot(text, 1767236400000 + i)
        if not named(snap):
            number_refs(snap)
        options = named(snap)
        page = f"grounding-data/{tree}"
        for description, targets in descriptions:
            refs = []
            for t in targets:
                ref = resolve(t, options, f"{page}: {description!r}")
                if ref not in refs:
                    refs.append(ref)
            emit(page, snap, description, refs, f"grounding-data:snapshots/{tree}.yaml hand-written")

    with open(a.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")

    by = collections.Counter((r["split"], "none" if not r["refs"] else "target") for r in rows)
    print(f"{len(rows)} rows -> {a.out} ({Path(a.out).stat().st_size / 1e6:.2f} MB)")
    for split in ("train", "dev", "test"):
        print(f"  {split:5}: {by[(split, 'target')]} with a target, {by[(split, 'none')]} none")
    for why, n in sorted(dropped.items()):
        print(f"  dropped {n}: {why}")


if __name__ == "__main__":
    main()
