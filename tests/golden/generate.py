"""Golden files for hark-ui's `<ui_state>` / `<ui_event>` rendering, made by pipecat-ai's own code.

Run through `generate.sh`, which installs pipecat-ai==1.14.0 into a throwaway venv and produces the
client-js walker snapshots first. This script only needs pipecat importable:

    python generate.py --out cases --walked RAW_DIR [--walked RAW_DIR2] --grounding GROUNDING_DIR

For every case it writes one file, cases/<id>.json (see README.md):
    {"kind": "ui_state", "source": ..., "snapshot": {...},
     "expected": <pipecat's `UIWorker.render_ui_state` over the plain dict, as the worker stores it>,
     "snapshot_text": <the snapshot as JSON text; only when it holds an int outside
                       [-2**63, 2**64), which a serde_json Value cannot hold>,
     "expected_wire": <the wire path: pydantic `UISnapshotData` validation, then
                       `tree.model_dump(exclude_none=True)` (pipeline/worker.py), then render;
                       null when pydantic refuses the snapshot>}
    {"kind": "ui_event", "source": ..., "event": "...", "payload": ...,  ("payload" absent = none sent)
     "expected": <pipecat's `UIWorker.render_ui_event`>}
"""

import argparse
import json
import os
import random
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pydantic
from pipecat.bus.ui.messages import BusUIEventMessage
from pipecat.processors.frameworks.rtvi.models import UISnapshotData
from pipecat.workers.ui.ui_worker import UIWorker


def render_state(snapshot):
    """pipecat's own `UIWorker.render_ui_state`, run on a stand-in `self` holding the snapshot."""
    return UIWorker.render_ui_state(SimpleNamespace(_latest_snapshot=snapshot))


def render_state_model(snapshot):
    """The wire path: pydantic validation + model_dump(exclude_none=True) + render, or None."""
    try:
        tree = UISnapshotData.model_validate({"tree": snapshot}).tree
    except pydantic.ValidationError:
        return None
    return render_state(tree.model_dump(exclude_none=True))


_MISSING = object()


def render_event(name, payload=_MISSING):
    msg = BusUIEventMessage(source="client", event_name=name)
    msg.payload = None if payload is _MISSING else payload
    return UIWorker.render_ui_event(SimpleNamespace(), msg)


# --------------------------------------------------------------------------------------------
# Playwright YAML (aria snapshot with refs) -> A11ySnapshot dict. See README.md "Conversion".
# --------------------------------------------------------------------------------------------

_LINE = re.compile(r'^(?P<indent> *)- (?P<body>.*)$')
_STATE_MAP = {"checked": "checked", "disabled": "disabled", "expanded": "expanded",
              "selected": "selected", "active": "focused"}


def _parse_head(body):
    """`role "name" [a] [b=c]: text` -> (role, name, attrs, inline_text, has_colon)."""
    m = re.match(r'^(?P<role>[^\s":\[]+)', body)
    if not m:
        return None
    role = m.group("role")
    rest = body[m.end():]
    name = None
    rest = rest.lstrip(" ")
    if rest.startswith('"'):
        # JSON-ish quoted string with backslash escapes.
        i, out = 1, []
        while i < len(rest) and rest[i] != '"':
            if rest[i] == "\\" and i + 1 < len(rest):
                i += 1
            out.append(rest[i])
            i += 1
        name = "".join(out)
        rest = rest[i + 1:].lstrip(" ")
    attrs = []
    while rest.startswith("["):
        j = rest.index("]")
        attrs.append(rest[1:j])
        rest = rest[j + 1:].lstrip(" ")
    inline, colon = None, False
    if rest.startswith(":"):
        colon = True
        inline = rest[1:].strip() or None
        if inline is not None and inline.startswith('"') and inline.endswith('"'):
            inline = inline[1:-1]
    return role, name, attrs, inline, colon


def yaml_to_snapshot(text, captured_at):
    root = {"ref": "", "role": "generic", "children": []}
    stack = [(-1, root)]
    for raw in text.splitlines():
        m = _LINE.match(raw)
        if not m:
            continue
        depth = len(m.group("indent")) // 2
        body = m.group("body")
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1]
        if body.startswith("/"):  # property line, e.g. `- /url: https://...`
            key, _, val = body[1:].partition(":")
            parent[key.strip()] = val.strip().strip('"')
            continue
        if body.startswith("text:") or body.startswith('text "'):
            name = body.split(":", 1)[1].strip() if body.startswith("text:") else body[6:-1]
            parent.setdefault("children", []).append({"ref": "", "role": "text", "name": name})
            continue
        head = _parse_head(body)
        if head is None:
            parent.setdefault("children", []).append({"ref": "", "role": "text", "name": body})
            continue
        role, name, attrs, inline, _colon = head
        node = {"ref": "", "role": role}
        if name:
            node["name"] = name
        state = []
        for a in attrs:
            k, eq, v = a.partition("=")
            if k == "ref":
                node["ref"] = v
            elif k == "level" and v.isdigit():
                node["level"] = int(v)
            elif k in _STATE_MAP and not eq:
                state.append(_STATE_MAP[k])
            elif k == "checked" and v == "mixed":
                state.append("checked")
            else:
                node.setdefault("attributes", {})[k] = v if eq else True
        if state:
            node["state"] = state
        if inline is not None:
            if role in ("textbox", "combobox", "searchbox", "spinbutton"):
                node["value"] = inline
            elif not name:
                node["name"] = inline
            else:
                node["children"] = [{"ref": "", "role": "text", "name": inline}]
        parent.setdefault("children", []).append(node)
        stack.append((depth, node))
    # A single top-level node becomes the root (the walker's root is the body's node).
    kids = root["children"]
    top = kids[0] if len(kids) == 1 else root
    return {"root": top, "captured_at": captured_at}


# --------------------------------------------------------------------------------------------
# Generated edge cases.
# --------------------------------------------------------------------------------------------

def edge_state_cases():
    cases = []
    add = lambda name, snap: cases.append((name, snap))
    base = 1767225600000

    def node(ref, role, **kw):
        d = {"ref": ref, "role": role}
        d.update(kw)
        return d

    def snap(root, **kw):
        d = {"root": root, "captured_at": base}
        d.update(kw)
        return d

    # The rtvi-ui.md §4 example.
    add("spec-example", snap(node("e1", "generic", children=[node("e2", "main", children=[
        node("e3", "heading", name="Checkout", level=1),
        node("e4", "paragraph", name="Review your order before paying."),
        node("e5", "textbox", name="Email", value="ana@example.com", state=["focused"]),
        node("e6", "checkbox", name="Gift wrap", state=["checked"]),
        node("e7", "combobox", name="Country", value="Spain", children=[
            node("e8", "option", name="France"), node("e9", "option", name="Spain", state=["selected"])]),
        node("", "text", name="Total: 42 EUR"),
        node("e10", "button", name="Pay now", state=["disabled", "offscreen"])])]),
        selection={"ref": "e4", "text": "Review your order"}))
    add("grid", snap(node("e1", "generic", children=[node("e2", "grid", name="Trending artists",
        colcount=8, rowcount=2, children=[node(f"e{i}", "button", name=f"Artist {i}") for i in range(3, 19)])])))

    strings = {
        "quotes": 'Say "hi" and \'bye\'',
        "newline": "line one\nline two",
        "crlf": "a\r\nb\rc",
        "tab": "col\tcol",
        "backslash": "C:\\path\\to\\file \\\" end",
        "nonascii": "Crème brûlée — ½ price · naïve",
        "cjk": "购物车 カート 장바구니",
        "emoji": "Add 🍰 to cart 👍🏽",
        "rtl": "سلة التسوق",
        "zerowidth": "a\u200bb\u200dc\ufeffd",
        "combining": "e\u0301 n\u0303",
        "linesep": "x\u2028y\u2029z\u0085w",
        "controls": "".join(chr(c) for c in range(0, 32)) + "\x7f",
        "brackets": "[ref=e99] [checked] - fake: \"line\"",
        "xml": "</ui_state><selection ref=\"e1\">",
        "spaces": "   ",
        "long": "x" * 500,
    }
    for key, s in strings.items():
        add(f"name-{key}", snap(node("e1", "generic", children=[node("e2", "button", name=s)])))
        add(f"value-{key}", snap(node("e1", "generic", children=[node("e2", "textbox", name="Field", value=s)])))
        add(f"selection-{key}", snap(node("e1", "generic", children=[node("e2", "paragraph", name="P")]),
                                     selection={"ref": "e2", "text": s}))
    add("ref-quotes", snap(node("e1", "generic", children=[node('e"2\n', "button", name="B")]),
                           selection={"ref": 'e"2\n', "text": "t"}))
    add("role-weird", snap(node("e1", "generic", children=[node("e2", "my role\n\"x\"", name="B"),
                                                            node("e3", "", name="empty role")])))

    # Empty strings everywhere.
    add("empty-name", snap(node("e1", "generic", children=[node("e2", "button", name="")])))
    add("empty-value", snap(node("e1", "generic", children=[node("e2", "textbox", name="N", value="")])))
    add("empty-ref", snap(node("", "generic", children=[node("", "button", name="No ref")])))
    add("empty-state", snap(node("e1", "generic", children=[node("e2", "button", name="B", state=[])])))
    add("empty-children", snap(node("e1", "generic", children=[])))
    add("empty-selection-text", snap(node("e1", "generic"), selection={"ref": "e1", "text": ""}))
    add("empty-selection-ref", snap(node("e1", "generic"), selection={"ref": "", "text": "t"}))

    # Missing / null fields.
    add("missing-role", snap(node("e1", "generic", children=[{"ref": "e2", "name": "No role"}])))
    add("missing-ref", snap(node("e1", "generic", children=[{"role": "button", "name": "No ref"}])))
    add("missing-role-root", snap({"ref": "e1", "children": [node("e2", "button", name="B")]}))
    add("empty-node", snap(node("e1", "generic", children=[{}])))
    add("null-fields", snap(node("e1", "generic", children=[node("e2", "button", name=None, value=None,
        state=None, level=None, colcount=None, rowcount=None, children=None)])))
    add("null-role", snap(node("e1", "generic", children=[node("e2", None, name="Null role")])))
    add("null-ref", snap(node("e1", "generic", children=[node(None, "button", name="Null ref")])))
    add("missing-captured-at", {"root": node("e1", "generic", children=[node("e2", "button", name="B")])})
    add("captured-at-string", {"root": node("e1", "generic"), "captured_at": "1767225600000"})
    add("captured-at-float", {"root": node("e1", "generic"), "captured_at": 1767225600000.0})
    add("captured-at-fraction", {"root": node("e1", "generic"), "captured_at": 1.5})
    add("no-root", {"captured_at": base})
    add("root-null", {"root": None, "captured_at": base})
    add("root-list", {"root": [node("e1", "generic")], "captured_at": base})
    add("root-string", {"root": "e1", "captured_at": base})
    add("root-empty-dict", {"root": {}, "captured_at": base})
    add("empty-snapshot", {})

    # Non-string / odd-typed fields.
    add("state-nonstring", snap(node("e1", "generic", children=[node("e2", "checkbox", name="C",
        state=[1, None, True, "", "checked", ["x"], {"a": 1}, 2.5, "focused"])])))
    add("state-string", snap(node("e1", "generic", children=[node("e2", "checkbox", name="C", state="checked")])))
    add("state-dict", snap(node("e1", "generic", children=[node("e2", "checkbox", name="C", state={"checked": True})])))
    add("state-unknown-tags", snap(node("e1", "generic", children=[node("e2", "checkbox", name="C",
        state=["pressed", "busy", "x y", "[z]", "é"])])))
    for label, v in [("int", 3), ("zero", 0), ("negative", -2), ("big", 2 ** 53 + 1), ("i64max", 2 ** 63 - 1),
                     ("str", "3"), ("str-padded", " 4 "), ("str-float", "3.0"), ("str-bad", "three"),
                     ("float-int", 3.0), ("float", 3.5), ("true", True), ("false", False),
                     ("list", [1]), ("dict", {"n": 1}), ("str-underscore", "1_0"), ("str-plus", "+5"),
                     # pydantic's lax int, value by value (issue 23, item 6).
                     ("str-float-zeros", "2.00"), ("str-dot", "2."), ("str-frac", "2.5"),
                     ("str-underscore-float", "2_0.0"), ("str-double-underscore", "1__0"),
                     ("str-nbsp", "\u00a03"), ("str-leading-zeros", "00012"), ("str-neg-float", "-2.0"),
                     ("str-exp", "1e2"), ("str-hex", "0x10"), ("str-empty", ""), ("str-i64max", "9223372036854775807"),
                     ("i64min", -2 ** 63), ("float-1e18", 1e18), ("float-1e19", 1e19), ("neg-zero", -0.0),
                     ("null", None)]:
        add(f"level-{label}", snap(node("e1", "generic", children=[node("e2", "heading", name="H", level=v)])))
        add(f"cols-{label}", snap(node("e1", "generic", children=[node("e2", "grid", name="G", colcount=v, rowcount=v)])))
    # The snapshot's and the selection's integers read like a node's (pydantic's lax int).
    for label, v in [("true", True), ("false", False), ("str", "7"), ("str-padded", " 7 "),
                     ("str-float", "7.0"), ("str-underscore", "1_0"), ("str-frac", "7.5"),
                     ("str-bad", "x"), ("float-int", 7.0), ("float", 7.5), ("null", None),
                     ("neg", -7), ("list", [7])]:
        add(f"lax-captured-at-{label}", {"root": node("e1", "generic"), "captured_at": v})
        add(f"lax-selection-offsets-{label}", snap(node("e1", "generic", children=[
            node("e2", "textbox", name="T", value="hello")]),
            selection={"ref": "e2", "text": "ell", "start_offset": v, "end_offset": v}))
    # Integers beyond 64 bits: pydantic keeps Python's exact int (issue 23, item 6). Written with
    # "snapshot_text" too (see _needs_text), since a serde_json Value cannot hold them.
    for label, v in [("2pow63", 2 ** 63), ("2pow64", 2 ** 64), ("below-i64min", -2 ** 63 - 1),
                     ("10pow40", 10 ** 40), ("neg-10pow30", -10 ** 30),
                     ("str-20-nines", "99999999999999999999"),
                     ("str-lax", " +0018_446_744_073_709_551_616.00 "), ("str-neg", "-99999999999999999999")]:
        add(f"wide-level-{label}", snap(node("e1", "generic", children=[node("e2", "heading", name="H", level=v)])))
        add(f"wide-cols-{label}", snap(node("e1", "generic", children=[node("e2", "grid", name="G", colcount=v, rowcount=v)])))
        add(f"wide-captured-at-{label}", {"root": node("e1", "generic"), "captured_at": v})
        add(f"wide-selection-offsets-{label}", snap(node("e1", "generic", children=[
            node("e2", "textbox", name="T", value="hello")]),
            selection={"ref": "e2", "text": "ell", "start_offset": v, "end_offset": v}))
    add("name-nonstring", snap(node("e1", "generic", children=[node("e2", "button", name=5),
        node("e3", "button", name=True), node("e4", "button", name=["a"])])))
    add("value-nonstring", snap(node("e1", "generic", children=[node("e2", "textbox", name="T", value=5)])))
    add("ref-nonstring", snap(node("e1", "generic", children=[node(7, "button", name="B")])))
    add("role-int", snap(node("e1", "generic", children=[node("e2", 5, name="B")])))
    add("role-float", snap(node("e1", "generic", children=[node("e2", 2.5, name="B"), node("e3", 1e16, name="C"),
                                                            node("e4", 1e-7, name="D")])))
    add("role-bool", snap(node("e1", "generic", children=[node("e2", True, name="B"), node("e3", False)])))
    add("role-list", snap(node("e1", "generic", children=[node("e2", ["a", "b'c", 1, None, True], name="B")])))
    add("role-dict", snap(node("e1", "generic", children=[node("e2", {"k": "v", "n": [1.5, False]}, name="B")])))
    add("children-dict", snap(node("e1", "generic", children={"ref": "e2", "role": "button"})))
    add("children-string", snap(node("e1", "generic", children="abc")))
    add("children-zero", snap(node("e1", "generic", children=0)))
    add("children-empty-string", snap(node("e1", "generic", children="")))
    add("children-empty-dict", snap(node("e1", "generic", children={})))
    add("children-nondict-items", snap(node("e1", "generic", children=[1, "x", None, [node("e9", "button")],
                                                                        node("e2", "button", name="Kept")])))
    add("selection-offsets", snap(node("e1", "generic", children=[node("e2", "textbox", name="T", value="hello")]),
                                  selection={"ref": "e2", "text": "ell", "start_offset": 1, "end_offset": 4}))
    add("selection-offsets-null", snap(node("e1", "generic"),
                                       selection={"ref": "e1", "text": "t", "start_offset": None, "end_offset": None}))
    add("selection-offsets-bad", snap(node("e1", "generic"),
                                      selection={"ref": "e1", "text": "t", "start_offset": "x"}))
    add("selection-extra", snap(node("e1", "generic"), selection={"ref": "e1", "text": "t", "rect": [1, 2]}))
    add("selection-missing-text", snap(node("e1", "generic"), selection={"ref": "e1"}))
    add("selection-nonstring", snap(node("e1", "generic"), selection={"ref": 5, "text": 6}))
    add("selection-list", snap(node("e1", "generic"), selection=["e1", "t"]))
    add("selection-null", snap(node("e1", "generic"), selection=None))
    add("extra-fields", snap(node("e1", "generic", description="d", children=[
        node("e2", "button", name="B", pressed=True, bbox={"x": 1}, tags=None)]), viewport={"w": 1}, url=None))

    # Deep and wide trees.
    for depth in (12, 40, 60):
        leaf = node(f"e{depth}", "button", name="Deepest")
        for d in range(depth - 1, 0, -1):
            leaf = node(f"e{d}", "group" if d % 2 else "generic", name=f"level {d}" if d % 3 == 0 else None,
                        children=[leaf])
            if leaf["name"] is None:
                del leaf["name"]
        add(f"deep-{depth}", snap(leaf))
    for width in (50, 200, 1000):
        add(f"wide-{width}", snap(node("e1", "list", children=[
            node(f"e{i + 2}", "listitem", name=f"Item {i}", state=["offscreen"] if i % 7 == 0 else [])
            for i in range(width)])))

    # Random trees with the walker's shapes (seeded, reproducible).
    rng = random.Random(6)
    roles = ["generic", "button", "link", "textbox", "checkbox", "radio", "heading", "paragraph", "list",
             "listitem", "table", "row", "cell", "columnheader", "combobox", "option", "img", "region",
             "main", "navigation", "text", "ellipsis", "grid"]
    names = ["Save", "Cancel", "Crème", "Ship to \"home\"", "", "Total\n42", "🍰 cake", "a", "Zoë's cart",
             "x" * 99 + "…"]
    tags = ["focused", "expanded", "selected", "disabled", "checked", "offscreen"]
    for k in range(40):
        counter = [0]

        def gen(depth):
            counter[0] += 1
            role = rng.choice(roles)
            n = {"ref": "" if role == "text" else f"e{counter[0]}", "role": role}
            if rng.random() < 0.7:
                n["name"] = rng.choice(names)
            if role in ("textbox", "combobox") and rng.random() < 0.6:
                n["value"] = rng.choice(names)
            st = [t for t in tags if rng.random() < 0.15]
            if st:
                n["state"] = st
            if role == "heading":
                n["level"] = rng.randint(1, 6)
            if role == "grid":
                n["colcount"] = rng.randint(1, 9)
                n["rowcount"] = rng.randint(1, 9)
            if depth < 6 and rng.random() < 0.45:
                n["children"] = [gen(depth + 1) for _ in range(rng.randint(1, 5))]
            return n

        s = snap(gen(0))
        if rng.random() < 0.4:
            s["selection"] = {"ref": "e1", "text": rng.choice(names)}
            if rng.random() < 0.5:
                s["selection"]["start_offset"] = 0
                s["selection"]["end_offset"] = len(s["selection"]["text"])
        add(f"random-{k:02d}", s)
    return cases


def edge_event_cases():
    cases = []
    add = lambda name, ev, *payload: cases.append((name, ev, payload[0] if payload else _MISSING))
    add("no-payload", "nav_click")
    add("null", "nav_click", None)
    add("true", "toggle", True)
    add("false", "toggle", False)
    for label, v in [("zero", 0), ("neg", -1), ("i64max", 2 ** 63 - 1), ("i64min", -(2 ** 63)),
                     ("u64max", 2 ** 64 - 1), ("big53", 2 ** 53 + 1)]:
        add(f"int-{label}", "n", v)
    for label, v in [("one", 1.0), ("tenth", 0.1), ("third", 1 / 3), ("e16", 1e16), ("e15", 1e15),
                     ("e15-5", 1.5e15), ("e16-5", 1.5e16), ("e22", 1e22), ("e-4", 0.0001), ("e-5", 0.00001),
                     ("e-7", 1.5e-7), ("neg-zero", -0.0), ("max", 1.7976931348623157e308),
                     ("min-sub", 5e-324), ("neg", -2.5e-10), ("big-frac", 123456789.123456789),
                     ("e20", 2.5e20), ("round", 100.0), ("e308", 1e308), ("e-300", 1e-300)]:
        add(f"float-{label}", "f", v)
    add("string-plain", "s", "hello")
    add("string-empty", "s", "")
    add("string-escapes", "s", "quote \" backslash \\ slash / nl \n cr \r tab \t bs \b ff \f")
    add("string-controls", "s", "".join(chr(c) for c in range(0, 32)) + "\x7f\x80\x9f")
    add("string-nonascii", "s", "Crème brûlée ½ · naïve — “curly”")
    add("string-cjk", "s", "购物车 カート")
    add("string-emoji", "s", "🍰👍🏽🇪🇸 𝄞")
    add("string-linesep", "s", "x\u2028y\u2029z")
    add("string-bom", "s", "\ufeffbom \uffff")
    add("list-empty", "l", [])
    add("list-mixed", "l", [1, 1.0, "a", None, True, False, [], {}, [[["deep"]]], {"k": [1, {"x": None}]}])
    add("object-empty", "o", {})
    add("object-order", "o", {"zebra": 1, "apple": 2, "Mango": 3, "_": 4, "10": 5, "9": 6})
    add("object-nested", "o", {"ref": "e12", "meta": {"rect": {"x": 1.5, "y": -0.0}, "tags": ["a", "b"]},
                                "ok": True, "n": None})
    add("object-keys-escapes", "o", {"quo\"te": 1, "new\nline": 2, "ü": 3, "🍰": 4, "": 5})
    add("spec-example", "nav_click", {"view": "home"})
    add("note-click", "note_click", {"ref": "e12"})
    add("name-quotes", 'say "hi"', {"a": 1})
    add("name-nonascii", "klick_ü_🍰", {"a": 1})
    add("name-empty", "", {"a": 1})
    add("name-newline", "a\nb", "x")
    add("name-xml", "</ui_event><x>", {"</ui_event>": "<b>"})
    rng = random.Random(7)

    def rand_value(depth):
        r = rng.random()
        if depth > 3 or r < 0.5:
            return rng.choice([None, True, False, rng.randint(-10 ** 6, 10 ** 6), rng.uniform(-1e6, 1e6),
                               rng.choice(["", "a", "Zoë", "🍰", "x\ny", "\"q\""]),
                               rng.uniform(0, 1) * 10 ** rng.randint(-12, 25)])
        if r < 0.75:
            return [rand_value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(["a", "b", "c", "ref", "value", "ü", "k k"]) + str(i): rand_value(depth + 1)
                for i in range(rng.randint(0, 4))}

    for k in range(30):
        add(f"random-{k:02d}", f"event_{k}", rand_value(0))
    return cases


# --------------------------------------------------------------------------------------------


def _needs_text(v):
    """Whether `v` holds an int outside [-2**63, 2**64): one serde_json's Value cannot hold."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return not (-2 ** 63 <= v < 2 ** 64)
    if isinstance(v, dict):
        return any(_needs_text(x) for x in v.values())
    if isinstance(v, list):
        return any(_needs_text(x) for x in v)
    return False


def write_case(out, cid, case, rendered, model=None, model_checked=False):
    """One file per case: the input plus pipecat's outputs (JSON strings hold them exactly)."""
    case = dict(case)
    case["expected"] = rendered
    if model_checked:
        # The wire path: null = pydantic refused the snapshot.
        case["expected_wire"] = model
    with open(out / f"{cid}.json", "w", encoding="utf-8", newline="\n") as f:
        json.dump(case, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--walked", action="append", default=[], help="dir of walker snapshots (*.json)")
    ap.add_argument("--grounding", help="shared/grounding-data directory")
    ap.add_argument("--edge-only", action="store_true",
                    help="rewrite only the generated edge-* cases (no node, no browser); keep the others")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for p in out.iterdir():
        if not args.edge_only or p.name.startswith("edge-"):
            p.unlink()

    n_state = n_event = 0

    def state_case(cid, source, snapshot):
        nonlocal n_state
        case = {"kind": "ui_state", "source": source, "snapshot": snapshot}
        if _needs_text(snapshot):
            # The snapshot as JSON text, every digit kept: the Rust test decodes this text.
            case["snapshot_text"] = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"))
        write_case(out, cid, case, render_state(snapshot), render_state_model(snapshot), True)
        n_state += 1

    for d in args.walked:
        d = Path(d)
        tag = d.name
        for p in sorted(d.glob("*.json")):
            snapshot = json.loads(p.read_text(encoding="utf-8"))
            state_case(f"walk-{tag}-{p.stem}", f"client-js snapshotDocument: {tag}/{p.name}", snapshot)

    if args.grounding:
        g = Path(args.grounding)
        for i, line in enumerate((g / "miniwob-rendered" / "miniwob_aria_snapshots.jsonl").read_text().splitlines()):
            row = json.loads(line)
            snapshot = yaml_to_snapshot(row["snapshot"], 1767225600000 + i)
            state_case(f"yaml-miniwob-{i:03d}-{row['task']}-{row['seed']}",
                       f"grounding-data miniwob_aria_snapshots.jsonl row {i}", snapshot)
        for p in sorted((g / "snapshots").glob("*.yaml")):
            snapshot = yaml_to_snapshot(p.read_text(encoding="utf-8"), 1767225600000)
            state_case(f"yaml-{p.stem}", f"grounding-data snapshots/{p.name}", snapshot)

    for name, snapshot in edge_state_cases():
        state_case(f"edge-state-{name}", "generated edge case", snapshot)

    for name, ev, payload in edge_event_cases():
        case = {"kind": "ui_event", "source": "generated edge case", "event": ev}
        if payload is not _MISSING:
            case["payload"] = payload
        write_case(out, f"edge-event-{name}", case, render_event(ev, payload))
        n_event += 1

    total = sum(p.stat().st_size for p in out.iterdir())
    print(f"generate.py: {n_state} ui_state cases, {n_event} ui_event cases, {total} bytes in {out}")


if __name__ == "__main__":
    sys.exit(main())
