#!/usr/bin/env python3
"""Field-like grounding data, step 1: writes static HTML pages and, per page, the descriptions
with their targets (as data-k attributes). field_rows.mjs then snapshots each page with
client-js's walker and resolves the targets to refs.

Usage: python3 gen.py <out-dir>      (writes <out-dir>/html/<site>/<lang>/<page>.html and
                                     <out-dir>/manifest.jsonl; deterministic: SEED below)

Python 3.11 stdlib only. Vocabulary: vocab.py (shared controls, icons, templates) and
kinds.py (one spec per kind of app, two or more sites each).
"""

import hashlib
import sys
sys.dont_write_bytecode = True
import re
import html
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vocab as V  # noqa: E402
from kinds import KINDS, SITES  # noqa: E402

SEED = 20261207
LANGS = V.LANGS
SPLIT_FAMILY = {"train": 0, "dev": 1, "test": 2}

# Rows per page by description kind (upper bounds: fewer when a page has too few candidates).
QUOTA = {"name": 4, "paraphrase": 4, "role": 2, "row": 4, "ordinal": 3, "state": 2, "icon": 2, "none": 4}
CROSS_LANG = 0.09  # share of rows where the caller speaks another of the four languages


def esc(s):
    return html.escape(s, quote=True)


def rng_for(*parts):
    h = hashlib.sha256(("|".join(map(str, (SEED,) + parts))).encode()).hexdigest()
    return random.Random(int(h[:16], 16))


def pick_name(spec, lang, variant):
    names = spec["name"][lang]
    return names[variant % len(names)]


class Page:
    """Controls registered while rendering: everything named that the page shows."""

    def __init__(self, site, lang, pid, rng):
        self.site, self.lang, self.pid, self.rng = site, lang, pid, rng
        self.controls = []
        self.n = 0
        self.p = site["prefix"]

    def decor(self, name):
        """A named element that is no target (heading, dialog, tab list, paragraph): it only
        makes names ambiguous, so it is counted when a name must be unique on the page."""
        self.controls.append(dict(k=None, key="decor", spec={}, r="decor", name=name, icon=None, state=set(),
                                  item=None, action=None, group="decor", value=None))

    def ctl(self, key, spec, r, name, *, icon=None, state=(), item=None, action=None, group="main", value=None):
        self.n += 1
        k = f"c{self.n}"
        self.controls.append(dict(k=k, key=key, spec=spec, r=r, name=name, icon=icon, state=set(state),
                                  item=item, action=action, group=group, value=value))
        return k

    # --- HTML pieces -------------------------------------------------------------------------
    def svg(self, icon):
        return (f'<svg aria-hidden="true" class="{self.p}-ic" viewBox="0 0 24 24" width="18" height="18">'
                f'<path d="{V.ICON_PATHS[icon]}" stroke="currentColor" fill="none"/></svg>')

    def button(self, key, spec, name, *, icon_only=False, icon=None, cls="btn", state=(), item=None, action=None,
               group="main", label=None):
        dis = " disabled" if "disabled" in state else ""
        sel = ""
        icon = icon or spec.get("icon")
        if icon_only and icon:
            k = self.ctl(key, spec, "button", label or name, icon=icon, state=state, item=item, action=action, group=group)
            return (f'<button type="button" class="{self.p}-{cls} {self.p}-icon" data-k="{k}" aria-label="{esc(label or name)}"{dis}>'
                    f'{self.svg(icon)}</button>')
        k = self.ctl(key, spec, "button", label or name, state=state, item=item, action=action, group=group)
        aria = f' aria-label="{esc(label)}"' if label else ""
        return f'<button type="button" class="{self.p}-{cls}" data-k="{k}"{aria}{dis}{sel}>{esc(name)}</button>'

    def link(self, key, spec, name, *, cls="lnk", item=None, group="main", href="#"):
        k = self.ctl(key, spec, "link", name, item=item, group=group)
        return f'<a class="{self.p}-{cls}" href="{href}" data-k="{k}">{esc(name)}</a>'

    def field(self, key, spec, variant, fid):
        r = spec["r"]
        name = pick_name(spec, self.lang, variant)
        lang = self.lang
        rng = self.rng
        if r == "textbox":
            val = ""
            if spec.get("values") and rng.random() < 0.35:
                val = rng.choice(spec["values"][lang])
            st = {"filled"} if val else set()
            k = self.ctl(key, spec, "textbox", name, state=st, value=val or None, group="form")
            typ = spec.get("type", "text")
            ph = f' placeholder="{esc(spec["ph"][lang])}"' if spec.get("ph") else ""
            if spec.get("multiline"):
                return (f'<div class="{self.p}-row"><label for="{fid}">{esc(name)}</label>'
                        f'<textarea id="{fid}" data-k="{k}"{ph}>{esc(val)}</textarea></div>')
            return (f'<div class="{self.p}-row"><label for="{fid}">{esc(name)}</label>'
                    f'<input id="{fid}" type="{typ}" data-k="{k}" value="{esc(val)}"{ph}></div>')
        if r in ("checkbox", "switch"):
            on = rng.random() < spec.get("p_on", 0.4)
            st = {"checked"} if on else {"unchecked"}
            k = self.ctl(key, spec, r, name, state=st, group="form")
            chk = " checked" if on else ""
            role = ' role="switch"' if r == "switch" else ""
            return (f'<div class="{self.p}-check"><input type="checkbox"{role} id="{fid}" data-k="{k}"{chk}>'
                    f'<label for="{fid}">{esc(name)}</label></div>')
        if r == "combobox":
            opts = spec["options"][lang]
            sel = rng.randrange(len(opts))
            k = self.ctl(key, spec, "combobox", name, value=opts[sel], group="form")
            ok = [self.ctl(f"{key}#o{i}", {"name": {lang: [x]}}, "option", x, state={"selected"} if i == sel else set(), group="form")
                  for i, x in enumerate(opts)]
            self.controls[-len(opts) - 1]["options"] = ok
            o = "".join(f'<option data-k="{ok[i]}"{" selected" if i == sel else ""}>{esc(x)}</option>' for i, x in enumerate(opts))
            return (f'<div class="{self.p}-row"><label for="{fid}">{esc(name)}</label>'
                    f'<select id="{fid}" data-k="{k}">{o}</select></div>')
        if r == "radio":
            opts = spec["options"][lang]
            sel = rng.randrange(len(opts))
            parts = [f'<fieldset class="{self.p}-radios"><legend>{esc(name)}</legend>']
            for i, x in enumerate(opts):
                st = {"checked"} if i == sel else {"unchecked"}
                sub = dict(spec, name={lang: [x]}, para=None, role=None)
                k = self.ctl(f"{key}#{i}", sub, "radio", x, state=st, group="form")
                parts.append(f'<label><input type="radio" name="{fid}" data-k="{k}"{" checked" if i == sel else ""}>{esc(x)}</label>')
            parts.append("</fieldset>")
            return "".join(parts)
        raise ValueError(r)


def css(p, layout):
    return (f"body{{font-family:sans-serif;margin:0}} .{p}-hdr{{display:flex;gap:8px;align-items:center;padding:8px 16px;background:#f4f4f6}}"
            f" .{p}-nav a{{margin:0 6px}} .{p}-main{{display:flex;gap:24px;padding:16px}} .{p}-col{{flex:3}} .{p}-side{{flex:1}}"
            f" .{p}-grid{{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}} .{p}-card{{border:1px solid #ddd;padding:8px}}"
            f" .{p}-item{{display:flex;gap:8px;padding:6px;border-bottom:1px solid #eee}} .{p}-row{{margin:6px 0}}"
            f" .{p}-ftr{{padding:16px;background:#222;color:#ccc}} .{p}-ftr a{{color:#ccc;margin:0 8px}}"
            f" .{p}-dlg{{position:fixed;top:20%;left:30%;background:#fff;border:1px solid #999;padding:16px}}"
            f" table{{border-collapse:collapse}} td,th{{padding:4px 8px;border-bottom:1px solid #eee}}")


GENERIC_DIALOG = dict(
    title=V.T("Are you sure?", "¿Seguro que quieres continuar?", "Vous êtes sûr ?", "Bist du sicher?"),
    text=V.T("This can't be undone.", "Esta acción no se puede deshacer.", "Cette action est irréversible.", "Das lässt sich nicht rückgängig machen."),
    ok=dict(r="button", name=V.T(["Confirm", "Yes, continue"], ["Confirmar", "Sí, continuar"], ["Confirmer", "Oui, continuer"], ["Bestätigen", "Ja, weiter"]),
            para=V.T(["yes, go ahead", "I'm sure"], ["sí, adelante", "estoy seguro"], ["oui, vas-y", "j'en suis sûr"], ["ja, mach weiter", "ich bin mir sicher"])))


def render(site, lang, pidx):
    kind = KINDS[site["kind"]]
    pid = site["pages"][pidx]
    rng = rng_for(site["id"], lang, pid)
    pg = Page(site, lang, pid, rng)
    p = site["prefix"]
    var = site["variant"]
    out = []
    # ---------------------------------------------------------------- header
    hdr = [f'<header class="{p}-hdr">']
    hdr.append(pg.link("brand", {"name": {lang: [site["brand"]]}}, site["brand"], cls="brand", group="header"))
    if "menu" in site["header"]:
        hdr.append(pg.button("menu", V.SHARED["menu"], pick_name(V.SHARED["menu"], lang, var), icon_only=True, group="header"))
    nav_specs = [kind["nav"][i] for i in site["nav"]]
    hdr.append(f'<nav class="{p}-nav">' + "".join(pg.link(f"nav{i}", s, pick_name(s, lang, var), group="nav")
                                                   for i, s in zip(site["nav"], nav_specs)) + "</nav>")
    if "search" in site["header"]:
        sp = V.SHARED["search"]
        k = pg.ctl("search", sp, "textbox", pick_name(sp, lang, var), group="header")
        hdr.append(f'<form role="search" class="{p}-search"><input type="search" data-k="{k}" aria-label="{esc(pick_name(sp, lang, var))}">')
        if site.get("search_btn_icon"):
            hdr.append(pg.button("search_btn", V.SHARED["search_btn"], pick_name(V.SHARED["search_btn"], lang, var), icon_only=True, group="header"))
        else:
            hdr.append(pg.button("search_btn", V.SHARED["search_btn"], pick_name(V.SHARED["search_btn"], lang, var), group="header"))
        hdr.append("</form>")
    for key in site["header"]:
        if key in ("menu", "search", "signout"):
            continue
        spec = V.SHARED.get(key) or kind["extras"][key]
        hdr.append(pg.button(key, spec, pick_name(spec, lang, var), icon_only=bool(spec.get("icon")), group="header"))
    if "signout" in site["header"]:
        hdr.append(pg.button("signout", V.SHARED["signout"], pick_name(V.SHARED["signout"], lang, var), group="header"))
    hdr.append("</header>")
    out += hdr
    # ---------------------------------------------------------------- main column
    out.append(f'<main class="{p}-main"><div class="{p}-col">')
    h1 = kind["h1"][lang][pidx % len(kind["h1"][lang])]
    out.append(f'<h1>{esc(h1)}</h1>')
    pg.decor(h1)
    for key in site.get("top", []):
        spec = kind["extras"][key]
        out.append(pg.button(key, spec, pick_name(spec, lang, var), icon_only=bool(spec.get("icon")) and site.get("top_icons", False), cls="primary"))
    # tabs
    tabs = kind.get("tabs")
    sel_tab = None
    if tabs and site.get("tabs", True):
        sel_tab = pidx % len(tabs) if rng.random() < 0.6 else rng.randrange(len(tabs))
        t = [f'<div role="tablist" class="{p}-tabs" aria-label="{esc(h1)}">']
        for i, spec in enumerate(tabs):
            st = {"selected"} if i == sel_tab else set()
            k = pg.ctl(f"tab{i}", spec, "tab", pick_name(spec, lang, var), state=st, group="tabs")
            t.append(f'<button role="tab" class="{p}-tab" data-k="{k}" aria-selected="{"true" if i == sel_tab else "false"}">'
                     f'{esc(pick_name(spec, lang, var))}</button>')
        t.append("</div>")
        out += t
    # items
    n_items = site["n_items"][pidx % len(site["n_items"])]
    items = kind["items"](lang, rng_for(site["id"], lang, pid, "items"), n_items + 4)
    pool_extra = items[n_items:]
    items = items[:n_items]
    actions = [kind["actions"][a] for a in site["actions"]]
    layout = site["layout"]
    icon_acts = site.get("icon_actions", False)
    label_item = site.get("label_item", False)
    select_rows = site.get("select_rows", False)
    checked_rows = set()
    if select_rows and rng.random() < 0.5:
        checked_rows = {rng.randrange(n_items)}

    def act_html(i, it):
        h = []
        for a_key, spec in zip(site["actions"], actions):
            nm = pick_name(spec, lang, var)
            lab = None
            if label_item:
                lab = f"{nm} {it['b']}" if lang != "de" else f"{it['b']} {nm.lower()}" if spec.get("de_verb") else f"{nm}: {it['b']}"
            st = set()
            if spec.get("disabled_if") and spec["disabled_if"](it):
                st = {"disabled"}
            h.append(pg.button(a_key, spec, nm, icon_only=icon_acts and bool(spec.get("icon")), item=i, action=a_key,
                               label=lab, state=st, cls="act"))
        return "".join(h)

    def sel_html(i, it):
        if not select_rows:
            return ""
        lab = {"en": "Select", "es": "Seleccionar", "fr": "Sélectionner", "de": "Auswählen"}[lang] + f" {it['b']}"
        on = i in checked_rows
        k = pg.ctl("select_row", {"name": {lang: [lab]}}, "checkbox", lab, state={"checked" if on else "unchecked"}, item=i, group="main")
        return f'<input type="checkbox" aria-label="{esc(lab)}" data-k="{k}"{" checked" if on else ""}>'

    if layout == "table":
        cols = kind["cols"][lang]
        out.append(f'<table class="{p}-table"><thead><tr>' + ("<th></th>" if select_rows else "")
                   + "".join(f"<th>{esc(c)}</th>" for c in cols) + "<th></th></tr></thead><tbody>")
        for i, it in enumerate(items):
            cells = "".join(f"<td>{esc(s)}</td>" for s in it["sub"][: len(cols) - 1])
            out.append(f"<tr>" + (f"<td>{sel_html(i, it)}</td>" if select_rows else "")
                       + f"<td>{pg.link('item', kind, it['title'], item=i)}</td>{cells}<td>{act_html(i, it)}</td></tr>")
        out.append("</tbody></table>")
    elif layout == "cards":
        out.append(f'<div class="{p}-grid" role="list">')
        for i, it in enumerate(items):
            subs = "".join(f'<span class="{p}-meta">{esc(s)}</span>' for s in it["sub"][:2])
            out.append(f'<div class="{p}-card" role="listitem">{sel_html(i, it)}{pg.link("item", kind, it["title"], item=i)}{subs}<div>{act_html(i, it)}</div></div>')
        out.append("</div>")
    else:  # list
        out.append(f'<ul class="{p}-list">')
        for i, it in enumerate(items):
            subs = " · ".join(esc(s) for s in it["sub"][:1])
            out.append(f'<li class="{p}-item">{sel_html(i, it)}{pg.link("item", kind, it["title"], item=i)}'
                       f'<span>{subs}</span>{act_html(i, it)}</li>')
        out.append("</ul>")
    # pager
    if site.get("pager", True):
        cur = pidx + 1
        plab = {"en": "Pagination", "es": "Paginación", "fr": "Pagination", "de": "Seitennavigation"}[lang]
        pg.decor(plab)
        pager = [f'<nav class="{p}-pager" aria-label="{plab}">']
        pager.append(pg.button("prev", V.SHARED["prev"], pick_name(V.SHARED["prev"], lang, var), icon_only=site.get("pager_icons", False),
                               state={"disabled"} if cur == 1 else set(), group="pager"))
        word = {"en": "Page", "es": "Página", "fr": "Page", "de": "Seite"}[lang]
        for n in range(1, 4):
            lab = f"{word} {n}"
            pager.append(pg.button(f"page{n}", {"name": {lang: [lab]}}, str(n), label=lab, group="pager",
                                   state={"current"} if n == cur else set()))
        pager.append(pg.button("next", V.SHARED["next"], pick_name(V.SHARED["next"], lang, var), icon_only=site.get("pager_icons", False), group="pager"))
        pager.append("</nav>")
        out += pager
    out.append("</div>")
    # ---------------------------------------------------------------- side panel / form
    form_keys = site["form"]
    if form_keys:
        fh = kind["form_title"][lang][var % len(kind["form_title"][lang])]
        out.append(f'<aside class="{p}-side"><h2>{esc(fh)}</h2><form class="{p}-form">')
        pg.decor(fh)
        for j, fk in enumerate(form_keys):
            out.append(pg.field(fk, kind["form"][fk], var, f"{p}-f{j}"))
        sub = kind["submit"]
        st = {"disabled"} if rng.random() < site.get("p_submit_disabled", 0.25) else set()
        out.append(pg.button("submit", sub, pick_name(sub, lang, var), state=st, cls="primary", group="form"))
        if site.get("form_cancel"):
            out.append(pg.button("cancel", V.SHARED["cancel"], pick_name(V.SHARED["cancel"], lang, var), group="form"))
        out.append("</form></aside>")
    out.append("</main>")
    # ---------------------------------------------------------------- dialog (some pages)
    if pidx in site.get("dialog_pages", ()):
        d = kind.get("dialog") or GENERIC_DIALOG
        out.append(f'<div role="dialog" aria-label="{esc(d["title"][lang])}" class="{p}-dlg"><h2>{esc(d["title"][lang])}</h2>')
        out.append(pg.button("close", V.SHARED["close"], pick_name(V.SHARED["close"], lang, var), icon_only=True, group="dialog"))
        out.append(f'<p>{esc(d["text"][lang])}</p>')
        pg.decor(d["title"][lang])
        pg.decor(d["text"][lang])
        out.append(pg.button("dlg_ok", d["ok"], pick_name(d["ok"], lang, var), group="dialog", cls="primary"))
        out.append(pg.button("cancel", V.SHARED["cancel"], pick_name(V.SHARED["cancel"], lang, var), group="dialog"))
        out.append("</div>")
    # ---------------------------------------------------------------- footer
    out.append(f'<footer class="{p}-ftr">')
    for key, names, para in [f for f in V.FOOTER if f[0] in site["footer"]]:
        spec = {"name": names, "para": para}
        out.append(pg.link(f"ft_{key}", spec, pick_name(spec, lang, var), group="footer"))
    if site.get("footer_extra"):
        for net, icon in (("Facebook", "user"), ("Instagram", "eye"), ("YouTube", "play"), ("LinkedIn", "user")):
            k = pg.ctl(f"social_{net}", {"name": {lang: [net]}}, "link", net, group="footer")
            out.append(f'<a class="{p}-soc" href="#" aria-label="{net}" data-k="{k}">{pg.svg(icon)}</a>')
        for code, lname in (("en", "English"), ("es", "Español"), ("fr", "Français"), ("de", "Deutsch")):
            if code != lang:
                out.append(pg.link(f"lang_{code}", {"name": {lang: [lname]}}, lname, group="footer", href=f"#{code}"))
    out.append(f'<small>© 2026 {esc(site["brand"])}</small></footer>')
    title = f"{h1} – {site['brand']}"
    doc = (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{esc(title)}</title>'
           f"<style>{css(p, layout)}</style></head><body>" + "".join(out) + "</body></html>")
    return doc, pg, items, pool_extra, sel_tab


# ============================================================================================
# Descriptions
# ============================================================================================

def lower_maybe(rng, s, p=0.35, lang="en"):
    return s.lower() if rng.random() < p and lang != "de" else s


def allowed(lst, fam):
    """Templates of a site family: index % 3 != family (families 0/1/2 = train/dev/test)."""
    got = [t for i, t in enumerate(lst) if i % 3 != fam]
    return got or lst


def spoken(rng, lang, core, fam, cmd=True, force=False):
    """prefix + (command template around the core) + suffix."""
    if cmd and (force or is_np(lang, core)):
        tpl = rng.choice(allowed(V.CMD[lang], fam))
        s = tpl.replace("{x}", core)
    else:
        s = core
    suf = rng.choice(V.SUFFIX[lang])
    if any(w in s for w in ("please", "por favor", "plaît", "bitte")):
        suf = ""
    s = rng.choice(V.FILLER[lang]) + s + suf
    return contract(lang, " " + s.strip() + " ").strip()


def ord_forms(lang, i, last=False):
    if lang == "de":
        stem = "letzt" if last else V._ORD_DE[i]
        return dict(o=stem + "e", o_m=stem + "en", o_f=stem + "en", o_n=stem + "en")
    if last:
        return dict(o=V.last_word(lang), o_m=V.last_word(lang, "m"), o_f=V.last_word(lang, "f"), o_n=V.last_word(lang))
    return dict(o=V.ordinal(lang, i), o_m=V.ordinal(lang, i, "m"), o_f=V.ordinal(lang, i, "f"), o_n=V.ordinal(lang, i, "n"))


def fill(tpl, **kw):
    for k, v in kw.items():
        tpl = tpl.replace("{" + k + "}", v)
    return tpl


ITEM_OPEN = V.T(["open {x}", "show me {x}", "{x}", "go to {x}", "click on {x}", "the link for {x}"],
                ["abre {x}", "enséñame {x}", "{x}", "entra en {x}", "pincha en {x}", "quiero ver {x}"],
                ["ouvre {x}", "montre-moi {x}", "{x}", "va sur {x}", "clique sur {x}", "je veux voir {x}"],
                ["öffne {x}", "zeig mir {x}", "{x}", "mach {x} auf", "klick auf {x}", "ich will {x} sehen"])
ORD_ITEM = V.T(["the {o} {noun}", "open the {o} {noun}", "the {o} one", "the {o} {noun} in the list", "the {n} {noun}"],
               ["{art} {o} {noun}", "abre {art} {o} {noun}", "{art} {os} de la lista", "{art} {o} {noun} de la lista", "{art} {os}"],
               ["{art} {o} {noun}", "ouvre {art} {o} {noun}", "{art} {o} de la liste", "{art} {o} {noun} de la liste", "{art} {o}"],
               ["{art} {o} {noun}", "öffne {art} {o} {noun}", "{art} {o} in der Liste", "{art} {o} {noun} in der Liste", "{art} {o} da"])
ORD_TAB = V.T(["the {o} tab", "go to the {o} tab"], ["la {o_f} pestaña", "ve a la {o_f} pestaña"],
              ["le {o_m} onglet", "va sur le {o_m} onglet"], ["den {o_m} Reiter", "geh auf den {o_m} Tab"])


def no_compound(frames, a, lang):
    """German: "den {a}-Button" only when the action's name is one word."""
    if lang == "de" and " " in a:
        return [f for f in frames if "{a}-" not in f] or frames
    return frames


def standalone(lang, o):
    """Spanish apocopated ordinals regain their -o without a noun (el tercer libro / el tercero)."""
    return o + "o" if lang == "es" and o in ("primer", "tercer", "decimotercer") else o


ARTICLES = {"en": ("the ", "my ", "a ", "that "), "es": ("el ", "la ", "los ", "las ", "mi ", "mis ", "un ", "una ", "lo "),
            "fr": ("le ", "la ", "les ", "l'", "mon ", "ma ", "mes ", "un ", "une ", "ce "),
            "de": ("den ", "die ", "das ", "mein", "einen ", "eine ", "dem ")}


def is_np(lang, s):
    return s.startswith(ARTICLES[lang]) or (lang != "de" and s[:1].isupper())


def contract(lang, s):
    if lang == "es":
        s = s.replace(" a el ", " al ").replace(" de el ", " del ")
    elif lang == "fr":
        s = s.replace(" à le ", " au ").replace(" de le ", " du ").replace(" à les ", " aux ").replace(" de les ", " des ")
        s = re.sub(r"(?<![\w'])(le|la|de|que|Le|La|De) (?=[aeiouyéèêàâîôûAEIOUYÉÈÊÀÂÎÔÛ])(?!onz)",
                   lambda m: {"le": "l'", "la": "l'", "de": "d'", "que": "qu'", "Le": "L'", "La": "L'", "De": "D'"}[m.group(1)], s)
    return s


def item_ord(lang, i, gender, last=False):
    if lang == "en":
        return V.last_word("en") if last else V.ordinal("en", i)
    if lang == "de":
        stem = "letzt" if last else V._ORD_DE[i]
        return stem + ("en" if gender == "m" else "e")
    if last:
        return V.last_word(lang, gender)
    return V.ordinal(lang, i, gender)


def describe(site, lang, pidx, pg, items, extra_items, sel_tab, split):
    kind = KINDS[site["kind"]]
    rng = rng_for(site["id"], lang, site["pages"][pidx], "desc")
    fam = SPLIT_FAMILY[split]
    by_name = {}
    for c in pg.controls:
        by_name.setdefault(c["name"].lower(), []).append(c)
    C = [c for c in pg.controls if c["r"] != "decor"]
    by_key = {}
    for c in C:
        by_key.setdefault(c["key"] if c["item"] is None else None, []).append(c)
    keys_on_page = {c["key"] for c in C}
    cands = {k: [] for k in list(QUOTA) + ["none_hard"]}

    def other_lang():
        return rng.choice([x for x in LANGS if x != lang])

    def add(dk, desc, refs, dlang=None):
        cands[dk].append((desc, [c["k"] for c in refs], dlang or lang))

    # ---- name
    for c in C:
        if len(by_name[c["name"].lower()]) != 1 or c["key"] == "select_row" or c["key"].startswith("page"):
            continue
        if c["action"] is not None and rng.random() < 0.7:  # row buttons named after their item: don't let them crowd out the rest
            continue
        if c["group"] == "footer" and rng.random() < 0.5:  # nor the footer's many links
            continue
        dl = other_lang() if rng.random() < CROSS_LANG else lang
        nm = lower_maybe(rng, c["name"], lang=lang)
        if rng.random() < 0.5 and c["r"] in V.NAME_FRAME:
            frames = V.NAME_FRAME[c["r"]][dl]
            if dl == "de" and (" " in nm or ":" in nm):  # no hyphenated compound around a phrase
                frames = [f for f in frames if "-" not in f] or frames
            core = rng.choice(frames).replace("{n}", nm)
            add("name", spoken(rng, dl, core, fam), [c], dl)
        else:
            add("name", spoken(rng, dl, nm, fam, force=True), [c], dl)
    # ---- paraphrase / role / icon (controls whose key is unique on the page)
    for c in C:
        if c["item"] is not None:
            continue
        same = [d for d in C if d["key"] == c["key"]]
        if len(same) != 1:
            continue
        spec = c["spec"]
        dl = other_lang() if rng.random() < CROSS_LANG else lang
        if spec.get("para") and spec["para"].get(dl) and (c["group"] != "footer" or rng.random() < 0.4):
            ph = rng.choice(allowed(spec["para"][dl], fam))
            add("paraphrase", spoken(rng, dl, ph, fam, cmd=rng.random() < 0.3), [c], dl)
        if spec.get("role") and spec["role"].get(dl):
            ph = rng.choice(allowed(spec["role"][dl], fam))
            add("role", spoken(rng, dl, ph, fam), [c], dl)
        if c["icon"]:
            same_icon = [d for d in C if d["icon"] == c["icon"]]
            if len(same_icon) == 1:
                ph = rng.choice(allowed(V.ICONS[c["icon"]][dl], fam))
                add("icon", spoken(rng, dl, ph, fam), [c], dl)
    # generic role nouns when the role is unique on the page
    for r, nouns in V.ROLE_NOUN.items():
        same = [c for c in C if c["r"] == r]
        if len(same) == 1:
            dl = other_lang() if rng.random() < CROSS_LANG else lang
            add("role", spoken(rng, dl, rng.choice(nouns[dl]), fam), same)
        elif not same and rng.random() < 0.5:
            add("none", spoken(rng, lang, rng.choice(nouns[lang]), fam), [])
    # ---- row-relative
    acts = [c for c in C if c["action"] is not None]
    links = {c["item"]: c for c in C if c["key"] == "item"}
    bs = [it["b"].lower() for it in items]
    for c in acts:
        it = items[c["item"]]
        if bs.count(it["b"].lower()) != 1:
            continue
        spec = c["spec"]
        a = lower_maybe(rng, pick_name(spec, lang, site["variant"]), 1.0, lang)
        roll = rng.random()
        if roll < 0.45 and spec.get("verb"):
            core = fill(rng.choice(allowed(spec["verb"][lang], fam)), x=it["x"], b=it["b"])
        elif roll < 0.7 and c["icon"]:
            core = fill(rng.choice(allowed(V.ROW_ICON[lang], fam)), i=rng.choice(V.ICONS[c["icon"]][lang]), x=it["x"], b=it["b"])
        else:
            core = fill(rng.choice(no_compound(allowed(V.ROW_FRAME[lang], fam), a, lang)), a=a, x=it["x"], b=it["b"])
        add("row", spoken(rng, lang, core, fam, cmd=False), [c])
    for i, it in enumerate(items):
        if bs.count(it["b"].lower()) != 1 or i not in links:
            continue
        core = fill(rng.choice(allowed(ITEM_OPEN[lang], fam)), x=it["x"])
        if core.strip() == it["title"]:
            continue
        add("row", spoken(rng, lang, core, fam, cmd=False), [links[i]])
    # ---- ordinal
    noun, gender = kind["noun"][lang]
    prim = site.get("primary_action")
    n = len(items)
    for i in list(range(min(n, 6))) + [n - 1]:
        last = i == n - 1 and i >= 3 and rng.random() < 0.6
        refs = [links[i]] if i in links else []
        if prim:
            refs += [c for c in acts if c["item"] == i and c["action"] == prim]
        if not refs:
            continue
        dl = other_lang() if rng.random() < CROSS_LANG else lang
        nn, gg = kind["noun"][dl]
        o = item_ord(dl, i, gg, last)
        tpl = rng.choice(allowed(ORD_ITEM[dl], fam))
        if "{n}" in tpl and (dl != "en" or last):
            tpl = "the {o} {noun}"
        num = V.ordinal("en", i, numeric=True) if not last else "last"
        core = fill(tpl, o=o, os=standalone(dl, o), noun=nn, art=V.article(dl, gg), n=num)
        add("ordinal", spoken(rng, dl, core, fam, cmd=False), refs, dl)
    # ordinal over row actions
    for a_key in site["actions"]:
        col = [c for c in acts if c["action"] == a_key]
        if len(col) < 2:
            continue
        for _ in range(2):
            i = rng.randrange(len(col))
            last = i == len(col) - 1 and rng.random() < 0.7
            f = ord_forms(lang, i, last)
            a = lower_maybe(rng, pick_name(col[i]["spec"], lang, site["variant"]), 1.0, lang)
            core = fill(rng.choice(no_compound(allowed(V.ORD_ACTION[lang], fam), a, lang)), a=a, **f)
            add("ordinal", spoken(rng, lang, core, fam, cmd=False), [col[i]])
        # past the end, with the action's real name in it ("the ninth Remove button"): hard "none"
        j = len(col) + rng.randrange(3)
        if j < 14:
            a = lower_maybe(rng, pick_name(col[0]["spec"], lang, site["variant"]), 1.0, lang)
            core = fill(rng.choice(no_compound(allowed(V.ORD_ACTION[lang], fam), a, lang)), a=a, **ord_forms(lang, j))
            add("none_hard", spoken(rng, lang, core, fam, cmd=False), [])
    # ordinal tabs
    tabs = [c for c in C if c["r"] == "tab"]
    if len(tabs) >= 2:
        i = rng.randrange(len(tabs))
        f = ord_forms(lang, i)
        add("ordinal", spoken(rng, lang, fill(rng.choice(ORD_TAB[lang]), **f), fam, cmd=False), [tabs[i]])
        f = ord_forms(lang, len(tabs) + rng.randrange(2))
        add("none", spoken(rng, lang, fill(rng.choice(ORD_TAB[lang]), **f), fam, cmd=False), [])
    # ordinal past the end
    for extra in (1, 2, 4):
        j = n - 1 + extra
        if j < 14:
            o = item_ord(lang, j, gender)
            core = fill(rng.choice(allowed(ORD_ITEM[lang], fam)).replace("{n}", "{o}"), o=o, os=standalone(lang, o), noun=noun, art=V.article(lang, gender))
            add("none", spoken(rng, lang, core, fam, cmd=False), [])
    # ---- state
    for (r, st), phr in V.STATE.items():
        pool = [c for c in C if c["r"] == r]
        hit = [c for c in pool if st in c["state"]]
        dl = other_lang() if rng.random() < CROSS_LANG else lang
        if len(hit) == 1:
            add("state", spoken(rng, dl, rng.choice(allowed(phr[dl], fam)), fam), hit, dl)
        elif not hit and (pool or r == "button") and rng.random() < 0.6:
            add("none", spoken(rng, lang, rng.choice(phr[lang]), fam), [])
    for c in C:
        if c["r"] == "combobox" and c["value"]:
            tpl = {"en": ["the dropdown that says {v}", "the one showing {v}", "change {v}"],
                   "es": ["el desplegable que pone {v}", "donde pone {v}", "cambia lo de {v}"],
                   "fr": ["la liste où il y a marqué {v}", "celle qui affiche {v}", "change « {v} »"],
                   "de": ["das Dropdown, wo {v} steht", "das Feld mit {v}", "ändere „{v}“"]}[lang]
            sel = [d for d in C if d["k"] in c.get("options", []) and "selected" in d["state"]]
            add("state", spoken(rng, lang, rng.choice(allowed(tpl, fam)).replace("{v}", c["value"]), fam, cmd=False), [c] + sel)
        if c["r"] == "textbox" and c["value"] and rng.random() < 0.6:
            tpl = {"en": ["the box with {v} in it", "the field where it says {v}"],
                   "es": ["el campo donde pone {v}", "la casilla que tiene {v}"],
                   "fr": ["le champ où il y a {v}", "la case avec {v} dedans"],
                   "de": ["das Feld, in dem {v} steht", "das Feld mit {v} drin"]}[lang]
            add("state", spoken(rng, lang, rng.choice(tpl).replace("{v}", c["value"]), fam, cmd=False), [c])
    # ---- none
    for ph in kind["absent"][lang]:
        add("none", spoken(rng, lang, ph, fam, cmd=rng.random() < 0.5), [])
    # items that are not on this page
    for it in extra_items:
        if it["b"].lower() in bs or any(it["b"].split()[0].lower() == b.split()[0] for b in bs):
            continue
        acts_specs = [kind["actions"][a] for a in site["actions"] if kind["actions"][a].get("verb")]
        if acts_specs and rng.random() < 0.6:
            spec = rng.choice(acts_specs)
            core = fill(rng.choice(spec["verb"][lang]), x=it["x"], b=it["b"])
        else:
            core = fill(rng.choice(ITEM_OPEN[lang]), x=it["x"])
        add("none", spoken(rng, lang, core, fam, cmd=False), [])
        # the page's own action, named, on an item that is not there: hard "none"
        if site["actions"]:
            spec = kind["actions"][rng.choice(site["actions"])]
            a = lower_maybe(rng, pick_name(spec, lang, site["variant"]), 1.0, lang)
            core = fill(rng.choice(no_compound(allowed(V.ROW_FRAME[lang], fam), a, lang)), a=a, x=it["x"], b=it["b"])
            add("none_hard", spoken(rng, lang, core, fam, cmd=False), [])
    # controls of other kinds (by name or paraphrase) that this page does not have
    names_here = {c["name"].lower() for c in pg.controls}
    for _ in range(3 if len(KINDS) > 1 else 0):
        ok = rng.choice([k for k in KINDS if k != site["kind"]])
        pool = list(KINDS[ok]["extras"].values()) + list(KINDS[ok]["form"].values()) + [KINDS[ok]["submit"]]
        spec = rng.choice(pool)
        nm = pick_name(spec, lang, 0)
        if nm.lower() in names_here or any(nm.lower() in h or h in nm.lower() for h in names_here if len(h) > 3):
            continue
        if spec.get("para") and rng.random() < 0.5 and not any(c["r"] == spec["r"] for c in C):
            # a paraphrase is only surely "none" when the page has no control of its role
            core = rng.choice(spec["para"][lang])
            add("none", spoken(rng, lang, core, fam, cmd=rng.random() < 0.3), [])
        else:
            nm = nm if lang == "de" else nm.lower()
            core = rng.choice(V.NAME_FRAME[spec["r"]][lang]).replace("{n}", nm) if spec["r"] in V.NAME_FRAME else nm
            add("none", spoken(rng, lang, core, fam), [])
    # shared icon controls this page lacks
    for key in ("notif", "settings", "help", "menu", "account"):
        if key not in keys_on_page and rng.random() < 0.4:
            spec = V.SHARED[key]
            if rng.random() < 0.5 and spec.get("icon"):
                add("none", spoken(rng, lang, rng.choice(V.ICONS[spec["icon"]][lang]), fam), [])
            else:
                add("none", spoken(rng, lang, rng.choice(spec["para"][lang]), fam, cmd=False), [])
    # ---- sample per quota, unique descriptions
    rows, seen = [], set()
    rng.shuffle(cands["none_hard"])
    for dk, q in QUOTA.items():
        pool = cands[dk]
        rng.shuffle(pool)
        if dk == "none":  # up to half the "none" rows are hard ones (a real name in a wrong place)
            pool = cands["none_hard"][: q // 2] + pool
        taken = 0
        for desc, refs, dl in pool:
            d = " ".join(desc.split())
            if d.lower() in seen or not d:
                continue
            seen.add(d.lower())
            rows.append(dict(description=d, lang=dl, desc_kind=dk, targets=refs))
            taken += 1
            if taken >= q:
                break
    return rows


def main():
    out = Path(sys.argv[1])
    (out / "html").mkdir(parents=True, exist_ok=True)
    man = open(out / "manifest.jsonl", "w", encoding="utf-8")
    npages = 0
    for site in SITES:
        for lang in LANGS:
            for pidx, pid in enumerate(site["pages"]):
                doc, pg, items, extra, sel_tab = render(site, lang, pidx)
                rel = f"html/{site['id']}/{lang}/{pid}.html"
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                (out / rel).write_text(doc, encoding="utf-8")
                rows = describe(site, lang, pidx, pg, items, extra, sel_tab, site["split"])
                man.write(json.dumps(dict(page=f"{site['id']}/{lang}/{pid}", site=site["id"], kind=site["kind"], lang=lang,
                                          split=site["split"], file=rel, rows=rows), ensure_ascii=False) + "\n")
                npages += 1
    man.close()
    print(f"gen.py: {npages} pages", file=sys.stderr)


if __name__ == "__main__":
    main()
