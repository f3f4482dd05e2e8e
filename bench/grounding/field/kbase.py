"""Helpers and the first kinds of app (shop, mail, calendar, …) and their sites, for gen.py.

A kind: noun (what one list item is called, with gender), h1, nav links, tabs, table columns,
items(lang, rng, n) -> [{title, sub, x, b}] (title: the item's link; x: how a caller refers
to it, article included, German accusative; b: its bare short name), row actions, extra
buttons, form fields (+ form_title, submit), a dialog, and "absent" phrases: near misses that
nothing on the page fits. Sites (two or more per kind) differ in layout, class prefix, wording
variant, which actions/fields they show, icon-only or text buttons, and their split.
"""

from vocab import T, FIRST, LAST, CITIES, MONTHS, WEEKDAYS

KINDS = {}
LANGS = ("en", "es", "fr", "de")


def B(name, para=None, role=None, icon=None, verb=None, **kw):
    return dict(r="button", name=name, para=para, role=role, icon=icon, verb=verb, **kw)


def LNK(name, para=None):
    return dict(r="link", name=name, para=para)


def TAB(name, para=None):
    return dict(r="tab", name=name, para=para)


def F(r, name, para=None, role=None, **kw):
    return dict(r=r, name=name, para=para, role=role, **kw)


def one(*names):
    """T from one name per language."""
    return T(*[[n] for n in names])


def cap(s):
    """Capitalize the first letter unless the word is camel-cased already (iPhone, iPad)."""
    w = s.split(" ")[0]
    return s if any(ch.isupper() for ch in w[1:]) else s[:1].upper() + s[1:]


def strip_article(s):
    for a in ("the ", "el ", "la ", "los ", "las ", "le ", "les ", "den ", "die ", "das ", "l'"):
        if s.startswith(a):
            return cap(s[len(a):])
    return cap(s)


def people(lang, rng, n):
    firsts = rng.sample(FIRST[lang], min(n, len(FIRST[lang])))
    return [(f, rng.choice(LAST[lang])) for f in firsts]


def price(lang, rng, lo=5, hi=200):
    v = rng.randrange(lo * 100, hi * 100, 50) / 100
    if lang == "en":
        return f"${v:,.2f}"
    return f"{v:,.2f} €".replace(",", "X").replace(".", ",").replace("X", ".")


def from_list(lst, lang, rng, n, xform=None, sub=None):
    """Items from a list of article-ful noun phrases (x); title = phrase without its article."""
    pick = rng.sample(lst[lang], min(n, len(lst[lang])))
    out = []
    for x in pick:
        title = strip_article(x)
        it = dict(title=title, x=x, b=title, sub=sub(lang, rng) if sub else [])
        if xform:
            xform(it, lang, rng)
        out.append(it)
    return out


# =============================================================================================
# shop
# =============================================================================================
PRODUCTS = T(
    ["the ceramic mug", "the linen tea towel", "the bamboo cutting board", "the cast iron skillet", "the glass water bottle",
     "the wool blanket", "the scented candle", "the espresso machine", "the wireless headphones", "the running shoes",
     "the rain jacket", "the leather wallet", "the desk lamp", "the yoga mat", "the steel kettle", "the canvas backpack"],
    ["la taza de cerámica", "el paño de cocina de lino", "la tabla de cortar de bambú", "la sartén de hierro", "la botella de vidrio",
     "la manta de lana", "la vela aromática", "la cafetera espresso", "los auriculares inalámbricos", "las zapatillas de running",
     "el chubasquero", "la cartera de piel", "el flexo", "la esterilla de yoga", "el hervidor de acero", "la mochila de lona"],
    ["le mug en céramique", "le torchon en lin", "la planche à découper", "la poêle en fonte", "la gourde en verre",
     "le plaid en laine", "la bougie parfumée", "la machine à expresso", "le casque sans fil", "les chaussures de running",
     "le coupe-vent", "le portefeuille en cuir", "la lampe de bureau", "le tapis de yoga", "la bouilloire inox", "le sac à dos en toile"],
    ["den Keramikbecher", "das Geschirrtuch aus Leinen", "das Schneidebrett aus Bambus", "die Gusseisenpfanne", "die Glasflasche",
     "die Wolldecke", "die Duftkerze", "die Espressomaschine", "den Bluetooth-Kopfhörer", "die Laufschuhe",
     "die Regenjacke", "den Geldbeutel aus Leder", "die Schreibtischlampe", "die Yogamatte", "den Wasserkocher", "den Rucksack"])


def shop_sub(lang, rng):
    return [price(lang, rng), f"{rng.choice([3.5, 4, 4.2, 4.5, 4.8])} ★"]


KINDS["shop"] = dict(
    noun=T(("product", "m"), ("producto", "m"), ("produit", "m"), ("Produkt", "n")),
    h1=T(["Home & kitchen", "Outdoor and sport", "New this week"], ["Hogar y cocina", "Deporte y aire libre", "Novedades de la semana"],
         ["Maison et cuisine", "Sport et plein air", "Nouveautés de la semaine"], ["Haus & Küche", "Sport & Outdoor", "Neu diese Woche"]),
    nav=[LNK(T(["Women"], ["Mujer"], ["Femme"], ["Damen"])), LNK(T(["Men"], ["Hombre"], ["Homme"], ["Herren"])),
         LNK(T(["Home"], ["Casa"], ["Maison"], ["Wohnen"]), T(["the house stuff"], ["lo de la casa"], ["les trucs pour la maison"], ["das Zeug für die Wohnung"])),
         LNK(T(["Kids"], ["Niños"], ["Enfants"], ["Kinder"]), T(["the children's section"], ["la sección infantil"], ["le rayon des petits"], ["die Abteilung für die Kleinen"])),
         LNK(T(["Deals", "Sale"], ["Ofertas", "Rebajas"], ["Promos", "Soldes"], ["Angebote", "Sale"]), T(["the discounts", "cheap stuff"], ["lo que está rebajado", "los chollos"], ["les réductions", "les bonnes affaires"], ["die Schnäppchen", "was reduziert ist"])),
         LNK(T(["Gift ideas"], ["Ideas para regalar"], ["Idées cadeaux"], ["Geschenkideen"]), T(["presents for someone"], ["algo para regalar"], ["un cadeau pour quelqu'un"], ["was zum Verschenken"]))],
    tabs=[TAB(T(["All"], ["Todo"], ["Tout"], ["Alle"])), TAB(T(["New arrivals"], ["Novedades"], ["Nouveautés"], ["Neuheiten"])),
          TAB(T(["Best sellers"], ["Más vendidos"], ["Meilleures ventes"], ["Bestseller"])), TAB(T(["On sale"], ["En oferta"], ["En promo"], ["Im Angebot"]))],
    cols=T(["Product", "Price", "Rating"], ["Producto", "Precio", "Valoración"], ["Produit", "Prix", "Note"], ["Produkt", "Preis", "Bewertung"]),
    items=lambda lang, rng, n: from_list(PRODUCTS, lang, rng, n, sub=shop_sub),
    actions=dict(
        add=B(T(["Add to cart", "Add to basket"], ["Añadir al carrito", "Añadir a la cesta"], ["Ajouter au panier", "Mettre dans le panier"], ["In den Warenkorb", "In den Korb"]),
              icon="cart",
              verb=T(["add {x} to my cart", "put {x} in the basket", "I'll take {x}", "buy {x}", "get me {x}", "add {b}"],
                     ["añade {x} al carrito", "mete {x} en la cesta", "me llevo {x}", "compra {x}", "quiero {x}", "pon {x} en el carro"],
                     ["ajoute {x} au panier", "mets {x} dans le panier", "je prends {x}", "achète {x}", "je veux {x}", "rajoute {x}"],
                     ["leg {x} in den Warenkorb", "pack {x} in den Korb", "ich nehm {x}", "kauf {x}", "ich möchte {x}", "{x} in den Warenkorb"])),
        wish=B(T(["Add to wishlist", "Save for later"], ["Añadir a favoritos", "Guardar para luego"], ["Ajouter aux favoris", "Garder pour plus tard"], ["Auf die Wunschliste", "Merken"]),
               icon="heart",
               verb=T(["save {x} for later", "put {x} on my wishlist", "remember {x}", "like {x}"],
                      ["guarda {x} para luego", "pon {x} en favoritos", "apúntame {x}", "marca {x} como favorito"],
                      ["garde {x} de côté", "mets {x} dans mes favoris", "note {x} pour plus tard", "mets un cœur sur {x}"],
                      ["merk dir {x}", "setz {x} auf die Wunschliste", "{x} für später speichern", "{x} favorisieren"])),
        dec=B(T(["Decrease quantity", "One less"], ["Quitar uno", "Reducir cantidad"], ["Diminuer la quantité", "Un de moins"], ["Menge verringern", "Eins weniger"]),
              icon="minus",
              verb=T(["one less {b}", "fewer of {x}", "take one {b} off"], ["uno menos de {b}", "baja la cantidad de {b}", "quita una unidad de {b}"],
                     ["un {b} de moins", "baisse la quantité pour {b}", "enlève un exemplaire de {b}"], ["ein {b} weniger", "die Menge bei {b} runter", "bei {b} eins weniger"])),
        inc=B(T(["Increase quantity", "One more"], ["Añadir uno", "Aumentar cantidad"], ["Augmenter la quantité", "Un de plus"], ["Menge erhöhen", "Eins mehr"]),
              icon="plus",
              verb=T(["one more {b}", "another one of {x}", "bump up {b}"], ["uno más de {b}", "sube la cantidad de {b}", "otra unidad de {b}"],
                     ["un {b} de plus", "augmente la quantité pour {b}", "encore un exemplaire de {b}"], ["noch ein {b}", "die Menge bei {b} hoch", "bei {b} eins mehr"])),
    ),
    extras=dict(
        cart=B(T(["Cart", "Basket"], ["Carrito", "Cesta"], ["Panier", "Mon panier"], ["Warenkorb", "Korb"]), icon="cart",
               para=T(["what I've picked so far", "go to checkout", "my shopping"], ["lo que llevo comprado", "ir a pagar", "mi compra"],
                      ["ce que j'ai pris pour l'instant", "passer à la caisse", "mes achats"], ["was ich bisher ausgesucht hab", "zur Kasse", "meinen Einkauf"]),
               role=T(["the shopping cart"], ["el carro de la compra"], ["le caddie"], ["den Einkaufswagen"])),
    ),
    form=dict(
        instock=F("checkbox", T(["In stock only", "Only available items"], ["Solo con stock", "Solo disponibles"], ["En stock uniquement", "Disponible seulement"], ["Nur verfügbare Artikel", "Nur auf Lager"]),
                  T(["hide what's sold out", "only things I can get now"], ["quita lo agotado", "que salga solo lo que hay"], ["cache ce qui est épuisé", "seulement ce qu'on peut avoir"], ["Ausverkauftes ausblenden", "nur was da ist"])),
        freeship=F("checkbox", T(["Free shipping", "Free delivery"], ["Envío gratis", "Envío gratuito"], ["Livraison gratuite", "Livraison offerte"], ["Kostenloser Versand", "Versandkostenfrei"]),
                   T(["no postage", "don't make me pay for delivery"], ["sin gastos de envío", "que no me cobren el envío"], ["sans frais de port", "pas de frais d'envoi"], ["ohne Porto", "keine Versandkosten"])),
        sort=F("combobox", T(["Sort by", "Order by"], ["Ordenar por", "Ordenar"], ["Trier par", "Tri"], ["Sortieren nach", "Sortierung"]),
               T(["change the order", "cheapest first"], ["cambia el orden", "lo más barato primero"], ["change l'ordre", "les moins chers d'abord"], ["die Reihenfolge ändern", "das Billigste zuerst"]),
               T(["the sort dropdown", "the sorting menu"], ["el desplegable de ordenar", "el menú de orden"], ["le menu de tri", "la liste de tri"], ["das Sortier-Dropdown", "das Sortiermenü"]),
               options=T(["Relevance", "Price: low to high", "Price: high to low", "Newest"], ["Relevancia", "Precio: de menor a mayor", "Precio: de mayor a menor", "Lo más nuevo"],
                         ["Pertinence", "Prix croissant", "Prix décroissant", "Nouveautés"], ["Relevanz", "Preis aufsteigend", "Preis absteigend", "Neueste"])),
        maxprice=F("textbox", T(["Max price", "Up to"], ["Precio máximo", "Hasta"], ["Prix max", "Jusqu'à"], ["Höchstpreis", "Bis"]),
                   T(["my budget", "how much I want to spend at most"], ["mi presupuesto", "lo máximo que quiero gastar"], ["mon budget", "combien je veux mettre au max"], ["mein Budget", "wie viel ich höchstens ausgeben will"]),
                   T(["the price box", "the max price field"], ["la casilla del precio", "el campo del precio máximo"], ["la case du prix", "le champ prix max"], ["das Preisfeld", "das Feld für den Höchstpreis"]),
                   values=T(["50", "100"], ["50", "100"], ["50", "100"], ["50", "100"])),
    ),
    form_title=T(["Filters", "Refine"], ["Filtros", "Afinar"], ["Filtres", "Affiner"], ["Filter", "Eingrenzen"]),
    submit=B(T(["Apply filters", "Show results"], ["Aplicar filtros", "Ver resultados"], ["Appliquer", "Voir les résultats"], ["Filter anwenden", "Ergebnisse anzeigen"]),
             T(["use these filters", "update the list"], ["que se apliquen los filtros", "actualiza la lista"], ["valide les filtres", "mets à jour la liste"], ["die Filter übernehmen", "die Liste aktualisieren"])),
    dialog=dict(title=T("Added to your cart", "Añadido al carrito", "Ajouté au panier", "Zum Warenkorb hinzugefügt"),
                text=T("1 item was added.", "Se ha añadido 1 artículo.", "1 article a été ajouté.", "1 Artikel wurde hinzugefügt."),
                ok=B(T(["Checkout", "Go to checkout"], ["Tramitar pedido", "Ir a pagar"], ["Commander", "Passer commande"], ["Zur Kasse", "Bestellen"]),
                     T(["pay now", "finish buying"], ["pagar ya", "terminar la compra"], ["payer maintenant", "finaliser l'achat"], ["jetzt bezahlen", "den Kauf abschließen"]))),
    absent=T(["the Apple Pay button", "the compare button", "the gift card field", "the size guide", "add the red sofa to my cart", "the chat with an agent"],
             ["el botón de Apple Pay", "el botón de comparar", "el campo de la tarjeta regalo", "la guía de tallas", "añade el sofá rojo al carrito", "el chat con un agente"],
             ["le bouton Apple Pay", "le bouton comparer", "le champ carte cadeau", "le guide des tailles", "ajoute le canapé rouge au panier", "le chat avec un conseiller"],
             ["den Apple-Pay-Button", "den Vergleichen-Knopf", "das Feld für den Gutschein", "die Größentabelle", "leg das rote Sofa in den Warenkorb", "den Chat mit einem Berater"]),
    sites=[
        dict(brand="Hearth & Co", layout="cards", actions=["add", "wish"], icon_actions=False, header=["search", "account", "cart"],
             form=["instock", "freeship", "sort"], primary_action="add", n_items=[9, 12, 8]),
        dict(brand="Kaufladen", layout="list", actions=["dec", "inc", "add"], icon_actions=True, label_item=True, variant=1,
             header=["menu", "search", "help", "cart"], form=["maxprice", "instock", "sort"], primary_action="add", n_items=[7, 8, 6],
             search_btn_icon=True, pager_icons=True),
    ],
)


# =============================================================================================
# Sites: two (or more) per kind, each in its own split (by site, never by row or page).
# =============================================================================================
# Kind i's sites a, b: SPLIT_PAIRS[i % 5] -> 6 train, 2 dev, 2 test sites per 5 kinds (60/20/20),
# and most kinds have a site in train and one in dev or test. A third site, if any: dev/test alternately.
SPLIT_PAIRS = [("train", "dev"), ("train", "test"), ("train", "train"), ("dev", "train"), ("test", "train")]
FOOTER_SETS = [
    ["about", "careers", "privacy", "terms", "contact", "helpcenter", "cookies", "accessibility"],
    ["about", "press", "blog", "careers", "developers", "status", "privacy", "terms", "cookies", "imprint", "sitemap", "app", "partners", "contact"],
    ["helpcenter", "contact", "privacy", "terms", "app", "about", "blog", "accessibility", "status", "imprint"],
]
PREFIXES = ["ax", "bq", "cz", "dk", "ev", "fw", "gy", "hx", "iq", "jt", "kv", "lm", "np", "or", "pu", "qs", "rw", "sy", "tz", "ub"]


def build_sites():
    sites = []
    n = 0
    for ki, (kname, kind) in enumerate(KINDS.items()):
        for si, s in enumerate(kind["sites"]):
            site = dict(
                id=f"{kname}-{'abc'[si]}", kind=kname, variant=si % 2, layout="cards", actions=[], header=["search"],
                form=[], n_items=[8, 7], pages=kind.get("pages", ["page-1", "page-2"]),
                nav=list(range(len(kind["nav"])))[si % 2:][:5] if si % 2 else list(range(min(5, len(kind["nav"])))),
                footer=FOOTER_SETS[(n + si) % len(FOOTER_SETS)], dialog_pages=(1,) if si % 2 == 0 else (0,),
                prefix=PREFIXES[n % len(PREFIXES)] + "-" + kname[:3], select_rows=False, footer_extra=(n % 3 != 1),
            )
            site.update(s)
            site["split"] = s.get("split", SPLIT_PAIRS[ki % 5][si] if si < 2 else ("dev", "test")[ki % 2])
            sites.append(site)
            n += 1
    return sites
