"""Kinds: search (results), banking, food (delivery), social (feed), files, jobs, news."""

from vocab import T, MONTHS, WEEKDAYS, CITIES, FIRST, LAST
from kbase import KINDS, B, LNK, TAB, F, people, price, from_list
from k2 import DELETE, EDIT, MORE, SHARE, DOWNLOAD

# =============================================================================================
RESULTS = T(
    ["the Wikipedia article", "the recipe site", "the news story", "the YouTube video", "the forum thread", "the government page",
     "the review site", "the Reddit post", "the map result", "the online dictionary", "the shop listing", "the university page"],
    ["el artículo de Wikipedia", "la web de recetas", "la noticia", "el vídeo de YouTube", "el hilo del foro", "la página del ministerio",
     "la web de reseñas", "el post de Reddit", "el resultado del mapa", "el diccionario online", "la ficha de la tienda", "la página de la universidad"],
    ["l'article Wikipédia", "le site de recettes", "l'article de presse", "la vidéo YouTube", "le fil du forum", "la page du service public",
     "le site d'avis", "le post Reddit", "le résultat sur la carte", "le dictionnaire en ligne", "la fiche produit", "la page de la fac"],
    ["den Wikipedia-Artikel", "die Rezeptseite", "die Nachricht", "das YouTube-Video", "den Forenbeitrag", "die Behördenseite",
     "die Bewertungsseite", "den Reddit-Post", "das Kartenergebnis", "das Online-Wörterbuch", "das Shop-Angebot", "die Uni-Seite"])
TOPIC = T(["How to grow tomatoes on a balcony", "Tomato plant care guide", "Balcony tomatoes: 10 tips", "Why are my tomato leaves yellow?",
           "Best tomato varieties for pots", "Growing tomatoes in containers", "Tomato – Wikipedia", "Tomato growing calendar",
           "Watering tomatoes: how much?", "Cherry tomatoes in small spaces", "Tomato pests and diseases", "Pruning tomato plants"],
          ["Cómo cultivar tomates en el balcón", "Guía de cuidado de tomateras", "Tomates en maceta: 10 consejos", "¿Por qué amarillean las hojas del tomate?",
           "Las mejores variedades para maceta", "Cultivar tomates en macetas", "Tomate – Wikipedia", "Calendario de siembra del tomate",
           "Cuánto regar los tomates", "Tomates cherry en poco espacio", "Plagas y enfermedades del tomate", "Cómo podar la tomatera"],
          ["Faire pousser des tomates sur son balcon", "Guide d'entretien des tomates", "Tomates en pot : 10 conseils", "Pourquoi les feuilles de tomate jaunissent ?",
           "Les meilleures variétés en pot", "Cultiver des tomates en bac", "Tomate — Wikipédia", "Calendrier de culture de la tomate",
           "Arroser ses tomates : combien ?", "Tomates cerises sur petit balcon", "Maladies et ravageurs de la tomate", "Tailler ses pieds de tomate"],
          ["Tomaten auf dem Balkon anbauen", "Tomatenpflege: der Leitfaden", "Balkontomaten: 10 Tipps", "Warum werden Tomatenblätter gelb?",
           "Die besten Sorten für den Topf", "Tomaten im Kübel ziehen", "Tomate – Wikipedia", "Aussaatkalender für Tomaten",
           "Tomaten gießen: wie viel?", "Kirschtomaten auf kleinem Raum", "Schädlinge und Krankheiten an Tomaten", "Tomaten ausgeizen"])


def search_items(lang, rng, n):
    src = rng.sample(RESULTS[lang], min(n, len(RESULTS[lang])))
    titles = rng.sample(TOPIC[lang], min(n, len(TOPIC[lang])))
    out = []
    for x, t in zip(src, titles):
        dom = rng.choice(["gardenly", "huerto", "jardin", "gartenwelt", "wiki", "plantas", "greenhouse", "potager"]) + rng.choice([".com", ".org", ".net"])
        out.append(dict(title=t, x=x, b=t, sub=[dom]))
    return out


KINDS["search"] = dict(
    noun=T(("result", "m"), ("resultado", "m"), ("résultat", "m"), ("Ergebnis", "n")),
    pages=["tomatoes-1", "tomatoes-2"],
    h1=T(["Results for “balcony tomatoes”"], ["Resultados de «tomates en el balcón»"], ["Résultats pour « tomates balcon »"], ["Ergebnisse für „Balkontomaten“"]),
    nav=[LNK(T(["All"], ["Todo"], ["Tous"], ["Alle"])), LNK(T(["Images"], ["Imágenes"], ["Images"], ["Bilder"]), T(["just pictures"], ["solo fotos"], ["que des photos"], ["nur Fotos"])),
         LNK(T(["Videos"], ["Vídeos"], ["Vidéos"], ["Videos"])), LNK(T(["News"], ["Noticias"], ["Actualités"], ["News"]), T(["recent articles about it"], ["artículos recientes sobre eso"], ["des articles récents là-dessus"], ["aktuelle Artikel dazu"])),
         LNK(T(["Maps"], ["Mapas"], ["Maps"], ["Karten"]), T(["show it on a map"], ["verlo en el mapa"], ["voir ça sur une carte"], ["auf der Karte zeigen"])), LNK(T(["Shopping"], ["Shopping"], ["Shopping"], ["Shopping"]))],
    tabs=[TAB(T(["Any time"], ["Cualquier fecha"], ["Date indifférente"], ["Beliebige Zeit"])), TAB(T(["Past week"], ["Última semana"], ["Moins d'une semaine"], ["Letzte Woche"]), T(["only recent stuff"], ["solo lo reciente"], ["que du récent"], ["nur Aktuelles"])),
          TAB(T(["Past year"], ["Último año"], ["Moins d'un an"], ["Letztes Jahr"]))],
    cols=T(["Result", "Site"], ["Resultado", "Sitio"], ["Résultat", "Site"], ["Ergebnis", "Seite"]),
    items=search_items,
    actions=dict(
        more=MORE,
        cached=B(T(["Cached", "Cached copy"], ["En caché", "Copia en caché"], ["En cache", "Copie en cache"], ["Im Cache", "Cache-Version"]),
                 verb=T(["the saved copy of {x}", "the old version of {x}"], ["la copia guardada de {x}", "la versión antigua de {x}"], ["la copie en cache de {x}", "l'ancienne version de {x}"], ["die gespeicherte Kopie von {b}", "die alte Version von {b}"])),
        similar=B(T(["Similar", "More like this"], ["Similares", "Más como este"], ["Similaires", "Plus de résultats comme celui-ci"], ["Ähnliche", "Mehr davon"]),
                  verb=T(["more like {x}", "things similar to {x}"], ["más cosas como {x}", "parecidos a {x}"], ["d'autres comme {x}", "des trucs comme {x}"], ["mehr wie {x}", "Ähnliches wie {x}"]))),
    extras=dict(
        voice=B(T(["Search by voice"], ["Buscar por voz"], ["Recherche vocale"], ["Sprachsuche"]), icon="volume",
                para=T(["let me say it instead of typing", "talk to search"], ["dejarme decirlo en vez de escribir", "buscar hablando"], ["le dire au lieu de le taper", "chercher à la voix"], ["es sagen statt tippen", "per Stimme suchen"])),
        clear=B(T(["Clear", "Clear search"], ["Borrar", "Borrar búsqueda"], ["Effacer", "Effacer la recherche"], ["Löschen", "Suche löschen"]), icon="x",
                para=T(["empty the search box", "wipe what I typed"], ["vacía la barra", "borra lo que he escrito"], ["vide la recherche", "efface ce que j'ai tapé"], ["das Suchfeld leeren", "weg mit dem, was ich getippt hab"])),
    ),
    form=dict(
        safe=F("switch", T(["SafeSearch"], ["Búsqueda segura"], ["SafeSearch"], ["SafeSearch"]), T(["hide explicit results", "the family filter"], ["ocultar lo explícito", "el filtro familiar"], ["masquer les contenus explicites", "le filtre parental"], ["anstößige Ergebnisse ausblenden", "den Jugendfilter"])),
        region=F("combobox", T(["Region"], ["Región"], ["Région"], ["Region"]), T(["results from another country"], ["resultados de otro país"], ["résultats d'un autre pays"], ["Ergebnisse aus einem anderen Land"]),
                 options=T(["United Kingdom", "United States", "Ireland"], ["España", "México", "Argentina"], ["France", "Belgique", "Canada"], ["Deutschland", "Österreich", "Schweiz"])),
        exact=F("checkbox", T(["Exact phrase only", "Verbatim"], ["Solo la frase exacta", "Literal"], ["Expression exacte", "Mot à mot"], ["Nur genaue Wortgruppe", "Wörtlich"]),
                T(["match my words exactly", "no guessing what I meant"], ["que coincidan mis palabras tal cual", "sin adivinar lo que quise decir"], ["mes mots tels quels", "sans deviner ce que je voulais dire"], ["genau meine Wörter", "nicht raten, was ich meine"])),
    ),
    form_title=T(["Search settings"], ["Ajustes de búsqueda"], ["Paramètres de recherche"], ["Sucheinstellungen"]),
    submit=B(T(["Apply"], ["Aplicar"], ["Appliquer"], ["Übernehmen"]), T(["use those settings"], ["usa esos ajustes"], ["prends ces réglages"], ["nimm diese Einstellungen"])),
    absent=T(["the sponsored result", "the image of the tomato plant", "the translate this page link", "the I'm feeling lucky button", "the shopping ad for seeds", "the related searches"],
             ["el resultado patrocinado", "la foto de la tomatera", "el enlace de traducir esta página", "el botón voy a tener suerte", "el anuncio de semillas", "las búsquedas relacionadas"],
             ["le résultat sponsorisé", "l'image du plant de tomate", "le lien traduire cette page", "le bouton j'ai de la chance", "la pub pour des graines", "les recherches associées"],
             ["das gesponserte Ergebnis", "das Bild von der Tomatenpflanze", "den Link Seite übersetzen", "den Auf-gut-Glück-Button", "die Werbung für Saatgut", "die ähnlichen Suchanfragen"]),
    sites=[
        dict(brand="Findr", layout="list", actions=["more"], icon_actions=True, label_item=True, header=["search", "settings", "account"], top=["voice", "clear"], top_icons=True,
             n_items=[10, 10], form=[], tabs=True),
        dict(brand="Buscalo", layout="list", actions=["cached", "similar"], header=["menu", "search", "account"], top=["voice"], top_icons=True,
             n_items=[8, 9], form=["safe", "region", "exact"], search_btn_icon=True),
    ],
)

# =============================================================================================
MERCHANTS = T(["Tesco", "Starbucks", "Amazon", "Shell", "Netflix", "Uber", "Pret A Manger", "Boots", "IKEA", "Spotify", "Trainline", "Deliveroo"],
              ["Mercadona", "Repsol", "El Corte Inglés", "Zara", "Netflix", "Renfe", "Telepizza", "Amazon", "IKEA", "Cabify", "Carrefour", "Spotify"],
              ["Monoprix", "SNCF", "Fnac", "Carrefour", "Netflix", "Total", "Boulangerie Paul", "Decathlon", "IKEA", "Amazon", "Uber", "Spotify"],
              ["Rewe", "Deutsche Bahn", "Aldi", "MediaMarkt", "Netflix", "Aral", "Lidl", "dm", "IKEA", "Amazon", "Lieferando", "Spotify"])


def bank_items(lang, rng, n):
    ms = rng.sample(MERCHANTS[lang], min(n, len(MERCHANTS[lang])))
    out = []
    for m in ms:
        amt = price(lang, rng, 3, 180)
        x = {"en": f"the {m} payment", "es": f"el pago de {m}", "fr": f"le paiement {m}", "de": f"die Zahlung an {m}"}[lang]
        d = f"{rng.randrange(1, 28)} {MONTHS[lang][rng.randrange(12)][:3]}"
        out.append(dict(title=m, x=x, b=m, sub=[d, "−" + amt]))
    return out


KINDS["banking"] = dict(
    noun=T(("transaction", "f"), ("movimiento", "m"), ("opération", "f"), ("Buchung", "f")),
    pages=["account-1", "account-2"],
    h1=T(["Current account", "Recent transactions"], ["Cuenta corriente", "Últimos movimientos"], ["Compte courant", "Dernières opérations"], ["Girokonto", "Letzte Umsätze"]),
    nav=[LNK(T(["Accounts"], ["Cuentas"], ["Comptes"], ["Konten"])), LNK(T(["Payments", "Transfers"], ["Pagos", "Transferencias"], ["Virements", "Paiements"], ["Überweisungen", "Zahlungen"]), T(["send money to someone"], ["mandar dinero a alguien"], ["envoyer de l'argent à quelqu'un"], ["jemandem Geld schicken"])),
         LNK(T(["Cards"], ["Tarjetas"], ["Cartes"], ["Karten"]), T(["my debit and credit cards"], ["mis tarjetas"], ["mes cartes bancaires"], ["meine Bankkarten"])),
         LNK(T(["Savings"], ["Ahorro"], ["Épargne"], ["Sparen"]), T(["my savings pot"], ["la hucha"], ["ma cagnotte"], ["mein Sparschwein"])), LNK(T(["Loans"], ["Préstamos"], ["Crédits"], ["Kredite"])),
         LNK(T(["Statements"], ["Extractos"], ["Relevés"], ["Kontoauszüge"]), T(["the monthly PDFs"], ["los PDF de cada mes"], ["les PDF mensuels"], ["die monatlichen PDFs"]))],
    tabs=[TAB(T(["All"], ["Todos"], ["Toutes"], ["Alle"])), TAB(T(["Money in"], ["Ingresos"], ["Crédits"], ["Eingänge"]), T(["what came in"], ["lo que me ha entrado"], ["ce qui est rentré"], ["was reingekommen ist"])),
          TAB(T(["Money out"], ["Gastos"], ["Débits"], ["Ausgänge"]), T(["what I spent"], ["lo que he gastado"], ["ce que j'ai dépensé"], ["was rausging"])), TAB(T(["Pending"], ["Pendientes"], ["En attente"], ["Vorgemerkt"]))],
    cols=T(["Merchant", "Date", "Amount"], ["Comercio", "Fecha", "Importe"], ["Commerçant", "Date", "Montant"], ["Empfänger", "Datum", "Betrag"]),
    items=bank_items,
    actions=dict(
        dispute=B(T(["Report a problem", "Dispute"], ["Reclamar", "Notificar un problema"], ["Contester", "Signaler un problème"], ["Reklamieren", "Problem melden"]),
                  verb=T(["dispute {x}", "I didn't make {x}", "complain about {x}"], ["reclama {x}", "yo no he hecho {x}", "quéjate de {x}"], ["conteste {x}", "je n'ai pas fait {x}", "signale {x}"], ["reklamier {x}", "{x} war ich nicht", "beschwer dich über {x}"])),
        receipt=B(T(["Receipt", "View receipt"], ["Justificante", "Ver justificante"], ["Justificatif", "Voir le reçu"], ["Beleg", "Beleg ansehen"]), icon="download",
                  verb=T(["the receipt for {x}", "proof of {x}"], ["el justificante de {x}", "el recibo de {x}"], ["le reçu pour {x}", "le justificatif de {x}"], ["den Beleg für {x}", "die Quittung für {x}"])),
        split=B(T(["Split"], ["Dividir"], ["Partager"], ["Aufteilen"]),
                verb=T(["split {x} with friends", "share the cost of {x}"], ["divide {x} con amigos", "reparte {x}"], ["partage {x} entre amis", "divise {x}"], ["teil {x} mit Freunden", "{x} aufteilen"])),
    ),
    extras=dict(
        transfer=B(T(["Make a transfer", "Send money"], ["Hacer una transferencia", "Enviar dinero"], ["Faire un virement", "Envoyer de l'argent"], ["Überweisen", "Geld senden"]), icon="plane",
                   para=T(["pay someone back", "wire money to a friend"], ["pagarle a alguien", "mandarle pasta a un amigo"], ["rembourser quelqu'un", "envoyer des sous à un pote"], ["jemandem Geld zurückzahlen", "einem Freund Geld schicken"])),
        freeze=B(T(["Freeze card"], ["Bloquear tarjeta"], ["Bloquer la carte"], ["Karte sperren"]),
                 para=T(["I lost my card", "stop anyone using my card"], ["he perdido la tarjeta", "que nadie pueda usar mi tarjeta"], ["j'ai perdu ma carte", "empêcher qu'on utilise ma carte"], ["ich hab meine Karte verloren", "damit keiner meine Karte benutzt"])),
        statement=B(T(["Download statement"], ["Descargar extracto"], ["Télécharger le relevé"], ["Kontoauszug herunterladen"]), icon="download",
                    para=T(["get this month's PDF", "the paperwork for my accountant"], ["el PDF de este mes", "los papeles para el gestor"], ["le PDF du mois", "les papiers pour le comptable"], ["das PDF von diesem Monat", "die Unterlagen für den Steuerberater"])),
    ),
    form=dict(
        payee=F("textbox", T(["Payee", "Recipient name"], ["Beneficiario", "Destinatario"], ["Bénéficiaire", "Nom du destinataire"], ["Empfänger", "Name des Empfängers"]),
                T(["who I'm paying", "the person getting the money"], ["a quién le pago", "quién recibe el dinero"], ["à qui je paie", "la personne qui reçoit"], ["wen ich bezahle", "wer das Geld kriegt"]), values=FIRST),
        iban=F("textbox", T(["IBAN", "Account number"], ["IBAN", "Número de cuenta"], ["IBAN", "Numéro de compte"], ["IBAN", "Kontonummer"]),
               T(["their bank details", "the long bank number"], ["sus datos bancarios", "el número largo del banco"], ["leurs coordonnées bancaires", "le long numéro de banque"], ["deren Bankverbindung", "die lange Banknummer"])),
        amount=F("textbox", T(["Amount"], ["Importe"], ["Montant"], ["Betrag"]), T(["how much to send", "the sum"], ["cuánto mando", "la cantidad"], ["combien j'envoie", "la somme"], ["wie viel ich schicke", "die Summe"]),
                 T(["the amount box"], ["la casilla del importe"], ["le champ montant"], ["das Betragsfeld"]), values=T(["25.00", "120"], ["25,00", "120"], ["25,00", "120"], ["25,00", "120"])),
        reference=F("textbox", T(["Reference"], ["Concepto"], ["Libellé"], ["Verwendungszweck"]), T(["what it's for", "a note for them"], ["para qué es", "una nota para ellos"], ["c'est pour quoi", "un petit mot"], ["wofür das ist", "eine Notiz dazu"])),
        instant=F("checkbox", T(["Instant transfer"], ["Transferencia inmediata"], ["Virement instantané"], ["Echtzeitüberweisung"]), T(["get it there right now", "no waiting days"], ["que llegue al momento", "sin esperar días"], ["que ça arrive tout de suite", "sans attendre"], ["sofort ankommen", "ohne Tage zu warten"])),
        savepayee=F("checkbox", T(["Save as new payee"], ["Guardar como beneficiario"], ["Enregistrer le bénéficiaire"], ["Als Empfänger speichern"]), T(["remember this person for next time"], ["recuerda a esta persona para la próxima"], ["garder cette personne pour la prochaine fois"], ["die Person fürs nächste Mal merken"])),
    ),
    form_title=T(["Quick transfer"], ["Transferencia rápida"], ["Virement rapide"], ["Schnellüberweisung"]),
    submit=B(T(["Continue", "Review transfer"], ["Continuar", "Revisar transferencia"], ["Continuer", "Vérifier le virement"], ["Weiter", "Überweisung prüfen"]), T(["go on to the next step"], ["pasa al siguiente paso"], ["passe à l'étape suivante"], ["zum nächsten Schritt"])),
    absent=T(["the investment tab", "dispute the Burger King payment", "the crypto wallet", "the overdraft settings", "the mortgage calculator", "the standing orders"],
             ["la pestaña de inversiones", "reclama el pago de Burger King", "la cartera de criptomonedas", "lo del descubierto", "la calculadora de hipoteca", "las órdenes permanentes"],
             ["l'onglet placements", "conteste le paiement Burger King", "le portefeuille crypto", "les réglages du découvert", "le simulateur de prêt immo", "les virements permanents"],
             ["den Reiter für Geldanlagen", "reklamier die Zahlung an Burger King", "die Krypto-Wallet", "die Dispo-Einstellungen", "den Baufinanzierungsrechner", "die Daueraufträge"]),
    sites=[
        dict(brand="Banco Claro", layout="table", actions=["dispute", "receipt"], icon_actions=False, header=["search", "notif", "help", "signout"],
             top=["transfer", "freeze"], n_items=[8, 7], form=["payee", "iban", "amount", "reference", "instant"]),
        dict(brand="Finova", layout="list", actions=["receipt", "split"], icon_actions=True, label_item=True, header=["menu", "notif", "account"],
             top=["statement", "transfer"], top_icons=False, n_items=[9, 10], form=["payee", "amount", "savepayee"], form_cancel=True),
    ],
)

# =============================================================================================
RESTAURANTS = T(["Luigi's Pizzeria", "Golden Dragon", "Burger Barn", "Sushi Zen", "Taco Loco", "The Curry House", "Green Bowl", "Pho Saigon", "Kebab Palace", "Le Petit Café"],
                ["Pizzería Luigi", "Dragón Dorado", "La Hamburguesería", "Sushi Zen", "Taquería El Loco", "Casa del Curry", "Green Bowl", "Pho Saigón", "Kebab Estambul", "Bar Manolo"],
                ["Chez Luigi", "Le Dragon d'Or", "Burger Factory", "Sushi Zen", "Taco Loco", "Maison du Curry", "Green Bowl", "Pho Saïgon", "Kebab Istanbul", "Crêperie Bretonne"],
                ["Pizzeria Luigi", "Goldener Drache", "Burger-Scheune", "Sushi Zen", "Taco Loco", "Curry-Haus", "Green Bowl", "Pho Saigon", "Döner Palast", "Schnitzelhaus"])
CUISINE = T(["Pizza", "Chinese", "Burgers", "Japanese", "Mexican", "Indian", "Salads", "Vietnamese", "Kebab", "Café"],
            ["Pizza", "China", "Hamburguesas", "Japonesa", "Mexicana", "India", "Ensaladas", "Vietnamita", "Kebab", "Tapas"],
            ["Pizza", "Chinois", "Burgers", "Japonais", "Mexicain", "Indien", "Salades", "Vietnamien", "Kebab", "Crêpes"],
            ["Pizza", "Chinesisch", "Burger", "Japanisch", "Mexikanisch", "Indisch", "Salate", "Vietnamesisch", "Döner", "Deutsch"])


FOODX = T(["the pizza place", "the Chinese", "the burger joint", "the sushi place", "the Mexican place", "the Indian", "the salad place", "the pho place", "the kebab shop", "the café"],
          ["la pizzería", "el chino", "la hamburguesería", "el japonés", "el mexicano", "el indio", "el de ensaladas", "el vietnamita", "el kebab", "el bar de tapas"],
          ["la pizzeria", "le chinois", "le burger", "le japonais", "le mexicain", "l'indien", "le resto de salades", "le vietnamien", "le kebab", "la crêperie"],
          ["die Pizzeria", "den Chinesen", "den Burgerladen", "den Japaner", "den Mexikaner", "den Inder", "den Salatladen", "den Vietnamesen", "den Dönerladen", "das Schnitzelhaus"])


def food_items(lang, rng, n):
    idx = rng.sample(range(10), min(n, 10))
    out = []
    for i in idx:
        r = RESTAURANTS[lang][i]
        out.append(dict(title=r, x=FOODX[lang][i], b=r, sub=[CUISINE[lang][i], f"{rng.randrange(15, 50)} min", f"{rng.choice([4.1, 4.3, 4.6, 4.8])} ★"]))
    return out


KINDS["food"] = dict(
    noun=T(("restaurant", "m"), ("restaurante", "m"), ("restaurant", "m"), ("Restaurant", "n")),
    pages=["nearby-1", "nearby-2"],
    h1=T(["Restaurants near you", "Order dinner"], ["Restaurantes cerca de ti", "Pide la cena"], ["Restaurants à proximité", "Commander le dîner"], ["Restaurants in deiner Nähe", "Abendessen bestellen"]),
    nav=[LNK(T(["Restaurants"], ["Restaurantes"], ["Restaurants"], ["Restaurants"])), LNK(T(["Groceries"], ["Supermercado"], ["Courses"], ["Lebensmittel"]), T(["the supermarket bit"], ["lo del súper"], ["les courses du supermarché"], ["den Supermarkt-Teil"])),
         LNK(T(["Offers"], ["Ofertas"], ["Offres"], ["Angebote"]), T(["cheap deals"], ["los descuentos"], ["les réductions"], ["die Rabatte"])), LNK(T(["My orders"], ["Mis pedidos"], ["Mes commandes"], ["Meine Bestellungen"]), T(["what I ordered before"], ["lo que pedí antes"], ["ce que j'ai commandé avant"], ["was ich schon bestellt hab"])),
         LNK(T(["Pickup"], ["Recoger en local"], ["À emporter"], ["Abholung"]))],
    tabs=[TAB(T(["Delivery"], ["A domicilio"], ["Livraison"], ["Lieferung"]), T(["bring it to my door"], ["que me lo traigan a casa"], ["qu'on me l'apporte"], ["bis an die Tür"])),
          TAB(T(["Pickup"], ["Para recoger"], ["À emporter"], ["Abholen"]), T(["I'll go get it myself"], ["voy yo a buscarlo"], ["j'irai le chercher"], ["ich hol's selbst ab"]))],
    cols=T(["Restaurant", "Cuisine", "Time", "Rating"], ["Restaurante", "Cocina", "Tiempo", "Nota"], ["Restaurant", "Cuisine", "Délai", "Note"], ["Restaurant", "Küche", "Zeit", "Bewertung"]),
    items=food_items,
    actions=dict(
        menu=B(T(["View menu", "Menu"], ["Ver carta", "Carta"], ["Voir la carte", "Carte"], ["Speisekarte", "Karte ansehen"]),
               verb=T(["what does {x} have", "show me {b}'s menu", "what can I get at {b}"], ["qué tiene {x}", "enséñame la carta de {b}", "qué hay en {b}"],
                      ["qu'est-ce qu'il y a chez {b}", "montre la carte de {b}", "ce qu'on peut prendre chez {b}"], ["was gibt's bei {b}", "zeig mir die Karte von {b}", "was hat {b}"])),
        fav=B(T(["Add to favourites", "Favourite"], ["Añadir a favoritos", "Favorito"], ["Ajouter aux favoris", "Favori"], ["Zu Favoriten", "Favorit"]), icon="heart",
              verb=T(["favourite {b}", "heart {b}", "save {b}"], ["guarda {b} en favoritos", "dale corazón a {b}", "marca {b}"], ["mets {b} en favori", "un cœur pour {b}", "garde {b}"], ["merk dir {b}", "gib {b} ein Herz", "{b} favorisieren"])),
        reorder=B(T(["Reorder", "Order again"], ["Repetir pedido", "Volver a pedir"], ["Recommander", "Commander à nouveau"], ["Erneut bestellen", "Nochmal bestellen"]), icon="refresh",
                  verb=T(["same as last time from {b}", "order {b} again"], ["lo mismo de la última vez en {b}", "vuelve a pedir en {b}"], ["pareil que la dernière fois chez {b}", "recommande chez {b}"], ["dasselbe wie letztes Mal bei {b}", "bestell nochmal bei {b}"])),
    ),
    extras=dict(
        basket=B(T(["Basket", "Your order"], ["Cesta", "Tu pedido"], ["Panier", "Votre commande"], ["Warenkorb", "Deine Bestellung"]), icon="cart",
                 para=T(["what I'm about to order", "check out my food"], ["lo que voy a pedir", "pagar la comida"], ["ce que je vais commander", "payer mon repas"], ["was ich gleich bestelle", "das Essen bezahlen"])),
        address=B(T(["Change address", "Deliver to"], ["Cambiar dirección", "Entregar en"], ["Changer d'adresse", "Livrer à"], ["Adresse ändern", "Liefern an"]),
                  para=T(["send it somewhere else", "I'm not at home"], ["que lo lleven a otro sitio", "no estoy en casa"], ["livrer ailleurs", "je ne suis pas chez moi"], ["woanders hinliefern", "ich bin nicht zu Hause"])),
    ),
    form=dict(
        vegetarian=F("checkbox", T(["Vegetarian"], ["Vegetariano"], ["Végétarien"], ["Vegetarisch"]), T(["no meat", "veggie only"], ["sin carne", "solo veggie"], ["sans viande", "que du végé"], ["ohne Fleisch", "nur veggie"])),
        freedel=F("checkbox", T(["Free delivery"], ["Envío gratis"], ["Livraison offerte"], ["Gratis-Lieferung"]), T(["no delivery fee"], ["sin gastos de envío"], ["sans frais de livraison"], ["ohne Liefergebühr"])),
        open=F("switch", T(["Open now"], ["Abierto ahora"], ["Ouvert maintenant"], ["Jetzt geöffnet"]), T(["only places that are open", "hide closed ones"], ["solo los que están abiertos", "quita los cerrados"], ["seulement ceux qui sont ouverts", "cache les fermés"], ["nur was offen hat", "die geschlossenen ausblenden"])),
        sort=F("combobox", T(["Sort by"], ["Ordenar por"], ["Trier par"], ["Sortieren"]), T(["order the list differently", "fastest first"], ["cambia el orden", "lo más rápido primero"], ["trie autrement", "le plus rapide d'abord"], ["anders sortieren", "das Schnellste zuerst"]),
               options=T(["Recommended", "Delivery time", "Rating", "Distance"], ["Recomendados", "Tiempo de entrega", "Valoración", "Distancia"], ["Recommandés", "Délai de livraison", "Note", "Distance"], ["Empfohlen", "Lieferzeit", "Bewertung", "Entfernung"])),
    ),
    form_title=T(["Filters"], ["Filtros"], ["Filtres"], ["Filter"]),
    submit=B(T(["Show restaurants"], ["Ver restaurantes"], ["Voir les restaurants"], ["Restaurants anzeigen"]), T(["update the list of places"], ["actualiza los sitios"], ["mets à jour les adresses"], ["die Läden aktualisieren"])),
    absent=T(["the Thai place", "the tip field", "the promo code box", "order from the Greek restaurant", "the gluten-free filter", "the track my rider button"],
             ["el tailandés", "el campo de la propina", "la casilla del código promocional", "pide en el griego", "el filtro sin gluten", "el botón de seguir al repartidor"],
             ["le thaï", "le champ pourboire", "la case code promo", "commande chez le grec", "le filtre sans gluten", "le bouton pour suivre le livreur"],
             ["den Thai-Laden", "das Trinkgeldfeld", "das Gutscheinfeld", "bestell beim Griechen", "den glutenfrei-Filter", "den Fahrer-verfolgen-Knopf"]),
    sites=[
        dict(brand="Mampf", layout="cards", actions=["menu", "fav"], icon_actions=False, header=["search", "account"], top=["address", "basket"], top_icons=False,
             n_items=[9, 8], form=["vegetarian", "freedel", "open"], primary_action="menu"),
        dict(brand="Comanda", layout="list", actions=["fav", "reorder"], icon_actions=True, label_item=True, header=["menu", "search", "basket", "account"],
             top=["address"], n_items=[8, 9], form=["sort", "vegetarian", "open"], pager=False),
    ],
)

# =============================================================================================
POSTS = T(["just finished my first marathon!", "look at this sunset", "new job announcement", "my sourdough finally worked", "holiday photos from the coast",
           "anyone know a good plumber?", "the puppy is home", "concert last night was amazing", "garden update", "throwback to last summer"],
          ["¡he terminado mi primer maratón!", "mirad qué atardecer", "tengo trabajo nuevo", "por fin me ha salido el pan de masa madre", "fotos de las vacaciones en la costa",
           "¿alguien conoce un buen fontanero?", "ya tenemos al cachorro en casa", "el concierto de anoche fue brutal", "novedades del huerto", "recordando el verano pasado"],
          ["j'ai fini mon premier marathon !", "regardez ce coucher de soleil", "nouveau boulot !", "mon pain au levain a enfin marché", "photos de vacances au bord de la mer",
           "quelqu'un connaît un bon plombier ?", "le chiot est arrivé", "le concert d'hier soir était génial", "des nouvelles du potager", "souvenir de l'été dernier"],
          ["erster Marathon geschafft!", "schaut euch diesen Sonnenuntergang an", "neuer Job!", "mein Sauerteigbrot hat endlich geklappt", "Urlaubsfotos von der Küste",
           "kennt jemand einen guten Klempner?", "der Welpe ist da", "das Konzert gestern war der Hammer", "Neues aus dem Garten", "Rückblick auf letzten Sommer"])


def post_items(lang, rng, n):
    ps = people(lang, rng, n)
    txt = rng.sample(POSTS[lang], min(n, len(POSTS[lang])))
    out = []
    for (f, l), t in zip(ps, txt):
        x = {"en": f"{f}'s post", "es": f"la publicación de {f}", "fr": f"le post de {f}", "de": f"den Beitrag von {f}"}[lang]
        out.append(dict(title=f"{f} {l}", x=x, b=f"{f} {l}", sub=[t, f"{rng.randrange(1, 23)} h"]))
    return out


KINDS["social"] = dict(
    noun=T(("post", "m"), ("publicación", "f"), ("post", "m"), ("Beitrag", "m")),
    pages=["feed-1", "feed-2"],
    h1=T(["Home", "Your feed"], ["Inicio", "Tu muro"], ["Accueil", "Votre fil"], ["Startseite", "Dein Feed"]),
    nav=[LNK(T(["Home"], ["Inicio"], ["Accueil"], ["Start"])), LNK(T(["Friends"], ["Amigos"], ["Amis"], ["Freunde"]), T(["my mates"], ["mis colegas"], ["mes potes"], ["meine Kumpels"])),
         LNK(T(["Groups"], ["Grupos"], ["Groupes"], ["Gruppen"])), LNK(T(["Marketplace"], ["Marketplace"], ["Marketplace"], ["Marktplatz"]), T(["the second-hand stuff for sale"], ["lo de segunda mano"], ["les trucs d'occasion à vendre"], ["den Gebrauchtkram"])),
         LNK(T(["Events"], ["Eventos"], ["Événements"], ["Veranstaltungen"])), LNK(T(["Saved"], ["Guardados"], ["Enregistrements"], ["Gespeichert"]))],
    tabs=[TAB(T(["For you"], ["Para ti"], ["Pour vous"], ["Für dich"])), TAB(T(["Following"], ["Siguiendo"], ["Abonnements"], ["Folge ich"]), T(["only people I follow"], ["solo la gente que sigo"], ["juste les gens que je suis"], ["nur Leute, denen ich folge"]))],
    cols=T(["Author", "Post", "Time"], ["Autor", "Publicación", "Hace"], ["Auteur", "Post", "Il y a"], ["Autor", "Beitrag", "Vor"]),
    items=post_items,
    actions=dict(
        like=B(T(["Like"], ["Me gusta"], ["J'aime"], ["Gefällt mir"]), icon="heart",
               verb=T(["like {x}", "give {x} a heart", "heart {x}"], ["dale me gusta a {x}", "ponle un corazón a {x}", "dale like a {x}"], ["like {x}", "mets un cœur sur {x}", "aime {x}"], ["like {x}", "gib {x} ein Herz", "{x} liken"])),
        comment=B(T(["Comment"], ["Comentar"], ["Commenter"], ["Kommentieren"]), icon="chat",
                  verb=T(["comment on {x}", "reply under {x}", "say something on {x}"], ["comenta {x}", "contesta a {x}", "escribe algo en {x}"], ["commente {x}", "réponds sous {x}", "écris un truc sous {x}"], ["kommentier {x}", "schreib was unter {x}", "antworte auf {x}"])),
        share=SHARE, more=MORE),
    extras=dict(
        newpost=B(T(["Create post", "What's on your mind?"], ["Crear publicación", "¿Qué estás pensando?"], ["Créer une publication", "Quoi de neuf ?"], ["Beitrag erstellen", "Was machst du gerade?"]), icon="pencil",
                  para=T(["write something for everyone", "post an update"], ["escribir algo para todos", "publicar algo"], ["écrire un truc pour tout le monde", "publier un statut"], ["was für alle schreiben", "ein Update posten"])),
        messages=B(T(["Messages", "Chats"], ["Mensajes", "Chats"], ["Messages", "Discussions"], ["Nachrichten", "Chats"]), icon="chat",
                   para=T(["my private conversations", "my DMs"], ["mis conversaciones privadas", "mis privados"], ["mes conversations privées", "mes MP"], ["meine privaten Unterhaltungen", "meine DMs"])),
    ),
    form=dict(
        status=F("textbox", T(["Write a post", "Share an update"], ["Escribe algo", "Comparte una novedad"], ["Écrivez quelque chose", "Partagez une nouvelle"], ["Schreib was", "Teile ein Update"]),
                 T(["where I type my status"], ["donde escribo mi estado"], ["là où j'écris mon statut"], ["wo ich meinen Status schreibe"]), multiline=True),
        audience=F("combobox", T(["Audience", "Who can see this"], ["Público", "Quién puede verlo"], ["Public", "Qui peut voir"], ["Sichtbarkeit", "Wer das sehen darf"]),
                   T(["who gets to see it", "friends only"], ["quién lo puede ver", "solo amigos"], ["qui pourra le voir", "seulement mes amis"], ["wer das sehen kann", "nur Freunde"]),
                   options=T(["Public", "Friends", "Only me"], ["Público", "Amigos", "Solo yo"], ["Public", "Amis", "Moi uniquement"], ["Öffentlich", "Freunde", "Nur ich"])),
    ),
    form_title=T(["New post"], ["Nueva publicación"], ["Nouvelle publication"], ["Neuer Beitrag"]),
    submit=B(T(["Post", "Publish"], ["Publicar"], ["Publier"], ["Posten", "Veröffentlichen"]), T(["put it online", "share it with everyone"], ["súbelo", "que lo vea todo el mundo"], ["mets-le en ligne", "partage-le avec tout le monde"], ["stell das online", "teil das mit allen"])),
    absent=T(["the story at the top", "like the one from my grandma", "the live video button", "the birthday reminders", "the friend suggestion", "the poll"],
             ["la historia de arriba", "dale me gusta al de mi abuela", "el botón de directo", "los recordatorios de cumpleaños", "la sugerencia de amistad", "la encuesta"],
             ["la story en haut", "like celui de ma grand-mère", "le bouton de live", "les rappels d'anniversaire", "la suggestion d'ami", "le sondage"],
             ["die Story ganz oben", "like den von meiner Oma", "den Live-Video-Knopf", "die Geburtstagserinnerungen", "den Freundschaftsvorschlag", "die Umfrage"]),
    sites=[
        dict(brand="Circulo", layout="cards", actions=["like", "comment", "share"], icon_actions=False, header=["search", "notif", "account"], top=["newpost"],
             n_items=[6, 7], form=[], pager=False),
        dict(brand="Plaza", layout="list", actions=["like", "more"], icon_actions=True, label_item=True, header=["menu", "search", "messages", "notif", "account"],
             n_items=[8, 9], form=["status", "audience"], pager=False),
    ],
)

# =============================================================================================
FILES = T(["Budget 2026.xlsx", "Holiday photos", "Tax return.pdf", "Meeting notes.docx", "CV final.pdf", "Invoices", "Wedding speech.docx", "Logo.png", "Presentation.pptx", "Contracts", "Recipes.txt", "Backup.zip"],
          ["Presupuesto 2026.xlsx", "Fotos vacaciones", "Declaración renta.pdf", "Notas reunión.docx", "CV definitivo.pdf", "Facturas", "Discurso boda.docx", "Logo.png", "Presentación.pptx", "Contratos", "Recetas.txt", "Copia.zip"],
          ["Budget 2026.xlsx", "Photos vacances", "Déclaration impôts.pdf", "Compte rendu.docx", "CV final.pdf", "Factures", "Discours mariage.docx", "Logo.png", "Présentation.pptx", "Contrats", "Recettes.txt", "Sauvegarde.zip"],
          ["Budget 2026.xlsx", "Urlaubsfotos", "Steuererklärung.pdf", "Protokoll.docx", "Lebenslauf final.pdf", "Rechnungen", "Hochzeitsrede.docx", "Logo.png", "Präsentation.pptx", "Verträge", "Rezepte.txt", "Backup.zip"])


def file_items(lang, rng, n):
    fs = rng.sample(FILES[lang], min(n, len(FILES[lang])))
    out = []
    for f in fs:
        folder = "." not in f
        base = f.rsplit(".", 1)[0]
        if folder:
            x = {"en": f"the {f} folder", "es": f"la carpeta {f}", "fr": f"le dossier {f}", "de": f"den Ordner {f}"}[lang]
        else:
            x = {"en": f"the {base} file", "es": f"el archivo {base}", "fr": f"le fichier {base}", "de": f"die Datei {base}"}[lang]
        size = "—" if folder else f"{rng.randrange(12, 900)} KB"
        out.append(dict(title=f, x=x, b=f, sub=[size, f"{rng.randrange(1, 28)}/{rng.randrange(1, 12)}/2026"]))
    return out


KINDS["files"] = dict(
    noun=T(("file", "m"), ("archivo", "m"), ("fichier", "m"), ("Datei", "f")),
    pages=["my-files", "shared"],
    h1=T(["My files", "Shared with me"], ["Mis archivos", "Compartido conmigo"], ["Mes fichiers", "Partagés avec moi"], ["Meine Dateien", "Mit mir geteilt"]),
    nav=[LNK(T(["My files"], ["Mis archivos"], ["Mes fichiers"], ["Meine Dateien"])), LNK(T(["Recent"], ["Recientes"], ["Récents"], ["Zuletzt verwendet"]), T(["what I opened lately"], ["lo último que abrí"], ["ce que j'ai ouvert récemment"], ["was ich zuletzt offen hatte"])),
         LNK(T(["Shared"], ["Compartidos"], ["Partagés"], ["Geteilt"])), LNK(T(["Starred"], ["Destacados"], ["Favoris"], ["Markiert"])),
         LNK(T(["Trash", "Bin"], ["Papelera"], ["Corbeille"], ["Papierkorb"]), T(["deleted files", "where deleted stuff goes"], ["lo que he borrado", "donde van los archivos borrados"], ["les fichiers supprimés", "là où vont les trucs effacés"], ["die gelöschten Dateien", "wo Gelöschtes landet"]))],
    tabs=[TAB(T(["List"], ["Lista"], ["Liste"], ["Liste"])), TAB(T(["Grid"], ["Cuadrícula"], ["Grille"], ["Raster"]), T(["the thumbnails view"], ["la vista con miniaturas"], ["la vue en vignettes"], ["die Kachelansicht"]))],
    cols=T(["Name", "Size", "Modified"], ["Nombre", "Tamaño", "Modificado"], ["Nom", "Taille", "Modifié"], ["Name", "Größe", "Geändert"]),
    items=file_items,
    actions=dict(download=DOWNLOAD, share=SHARE, delete=DELETE,
                 rename=B(T(["Rename"], ["Cambiar nombre"], ["Renommer"], ["Umbenennen"]), icon="pencil",
                          verb=T(["rename {x}", "give {x} a new name", "call {x} something else"], ["cambia el nombre de {x}", "renombra {x}", "ponle otro nombre a {x}"],
                                 ["renomme {x}", "change le nom de {x}", "donne un autre nom à {x}"], ["benenn {x} um", "gib {x} einen neuen Namen", "{x} umbenennen"]))),
    extras=dict(
        upload=B(T(["Upload", "Upload files"], ["Subir", "Subir archivos"], ["Importer", "Téléverser"], ["Hochladen", "Dateien hochladen"]), icon="plus",
                 para=T(["put a file from my computer up here", "add something from my laptop"], ["meter un archivo del ordenador", "subir algo desde el portátil"], ["mettre un fichier de mon ordi", "ajouter un truc depuis mon PC"], ["eine Datei von meinem Rechner reinstellen", "was vom Laptop hinzufügen"])),
        newfolder=B(T(["New folder"], ["Nueva carpeta"], ["Nouveau dossier"], ["Neuer Ordner"]),
                    para=T(["make a place to group files", "create a directory"], ["crear un sitio para agrupar archivos", "hacer un directorio"], ["faire un endroit pour ranger les fichiers", "créer un répertoire"], ["einen Platz zum Sortieren anlegen", "ein Verzeichnis anlegen"])),
        storage=B(T(["Storage", "Get more storage"], ["Almacenamiento", "Más espacio"], ["Stockage", "Plus d'espace"], ["Speicher", "Mehr Speicher"]),
                  para=T(["how much room I have left", "I'm running out of space"], ["cuánto espacio me queda", "me estoy quedando sin sitio"], ["combien de place il me reste", "je n'ai plus de place"], ["wie viel Platz noch frei ist", "mir geht der Platz aus"])),
    ),
    form=dict(),
    form_title=T([""], [""], [""], [""]),
    submit=B(T(["Done"], ["Hecho"], ["Terminé"], ["Fertig"])),
    absent=T(["the PDF viewer", "share the Photos 2019 folder", "the version history", "the sync button", "the scan a document option", "restore the deleted file"],
             ["el visor de PDF", "comparte la carpeta Fotos 2019", "el historial de versiones", "el botón de sincronizar", "la opción de escanear", "restaura el archivo borrado"],
             ["la visionneuse PDF", "partage le dossier Photos 2019", "l'historique des versions", "le bouton de synchro", "l'option scanner un document", "restaure le fichier supprimé"],
             ["den PDF-Betrachter", "teil den Ordner Fotos 2019", "den Versionsverlauf", "den Synchronisieren-Knopf", "die Scan-Funktion", "stell die gelöschte Datei wieder her"]),
    sites=[
        dict(brand="Drivebox", layout="table", actions=["share", "download"], icon_actions=True, label_item=True,
             header=["menu", "search", "settings", "account"], top=["upload", "newfolder"], n_items=[8, 7], select_rows=True),
        dict(brand="Nubedoc", layout="list", actions=["rename", "delete"], icon_actions=True, header=["search", "help", "account"], top=["upload", "storage"],
             n_items=[10, 9]),
    ],
)

# =============================================================================================
JOBS = T(["Senior Backend Engineer", "Product Designer", "Data Analyst", "Customer Success Manager", "Nurse", "Electrician", "Marketing Assistant", "Accountant", "Warehouse Operative", "Primary Teacher", "Chef de Partie", "Sales Executive"],
         ["Ingeniera/o Backend Senior", "Diseñador/a de producto", "Analista de datos", "Responsable de atención al cliente", "Enfermero/a", "Electricista", "Asistente de marketing", "Contable", "Mozo/a de almacén", "Maestro/a de primaria", "Jefe/a de partida", "Comercial"],
         ["Ingénieur backend senior", "Designer produit", "Analyste de données", "Chargé de relation client", "Infirmier/ère", "Électricien", "Assistant marketing", "Comptable", "Préparateur de commandes", "Professeur des écoles", "Chef de partie", "Commercial terrain"],
         ["Senior Backend-Entwickler (m/w/d)", "Produktdesigner (m/w/d)", "Datenanalyst (m/w/d)", "Kundenbetreuer (m/w/d)", "Pflegefachkraft", "Elektriker (m/w/d)", "Marketingassistenz", "Buchhalter (m/w/d)", "Lagermitarbeiter (m/w/d)", "Grundschullehrkraft", "Koch (m/w/d)", "Vertriebsmitarbeiter (m/w/d)"])
JOBX = T(["the backend job", "the designer job", "the data analyst one", "the customer success job", "the nursing job", "the electrician job", "the marketing assistant one", "the accountant job", "the warehouse job", "the teaching job", "the chef job", "the sales job"],
         ["la oferta de backend", "la de diseñador", "la de analista de datos", "la de atención al cliente", "la de enfermería", "la de electricista", "la de marketing", "la de contable", "la del almacén", "la de maestro", "la de cocinero", "la de comercial"],
         ["l'offre backend", "le poste de designer", "l'offre d'analyste", "le poste relation client", "le poste d'infirmier", "l'offre d'électricien", "le poste en marketing", "le poste de comptable", "le job en entrepôt", "le poste d'enseignant", "le poste en cuisine", "le poste de commercial"],
         ["die Backend-Stelle", "die Designer-Stelle", "die Stelle als Datenanalyst", "die Kundenbetreuer-Stelle", "die Pflegestelle", "die Elektriker-Stelle", "die Marketing-Stelle", "die Buchhalter-Stelle", "die Lagerstelle", "die Lehrerstelle", "die Stelle als Koch", "die Vertriebsstelle"])


def job_items(lang, rng, n):
    idx = rng.sample(range(12), min(n, 12))
    out = []
    for i in idx:
        out.append(dict(title=JOBS[lang][i], x=JOBX[lang][i], b=JOBS[lang][i], sub=[rng.choice(CITIES[lang]), rng.choice(["Acme", "Nordlicht", "Solaria", "Brightwave", "Iberdata", "Fleur & Co"])]))
    return out


KINDS["jobs"] = dict(
    noun=T(("job", "m"), ("oferta", "f"), ("offre", "f"), ("Stelle", "f")),
    pages=["search-1", "search-2"],
    h1=T(["Jobs near you", "Recommended jobs"], ["Empleos cerca de ti", "Ofertas recomendadas"], ["Offres près de chez vous", "Offres recommandées"], ["Jobs in deiner Nähe", "Empfohlene Stellen"]),
    nav=[LNK(T(["Find jobs"], ["Buscar empleo"], ["Trouver un emploi"], ["Jobs finden"])), LNK(T(["Companies"], ["Empresas"], ["Entreprises"], ["Unternehmen"]), T(["employers", "the firms"], ["los empleadores", "las compañías"], ["les employeurs", "les boîtes"], ["die Arbeitgeber", "die Firmen"])),
         LNK(T(["Salaries"], ["Salarios"], ["Salaires"], ["Gehälter"]), T(["how much jobs pay"], ["cuánto se cobra"], ["combien ça paie"], ["was man verdient"])), LNK(T(["My applications"], ["Mis candidaturas"], ["Mes candidatures"], ["Meine Bewerbungen"]), T(["the jobs I applied for"], ["a lo que me he presentado"], ["là où j'ai postulé"], ["wo ich mich beworben hab"])),
         LNK(T(["Post a job"], ["Publicar oferta"], ["Publier une offre"], ["Stelle ausschreiben"]))],
    tabs=[TAB(T(["Best match"], ["Más relevantes"], ["Pertinence"], ["Beste Treffer"])), TAB(T(["Most recent"], ["Más recientes"], ["Plus récentes"], ["Neueste"]), T(["newest first"], ["lo más nuevo primero"], ["les plus récentes d'abord"], ["das Neueste zuerst"]))],
    cols=T(["Job", "Location", "Company"], ["Puesto", "Ubicación", "Empresa"], ["Poste", "Lieu", "Entreprise"], ["Stelle", "Ort", "Firma"]),
    items=job_items,
    actions=dict(
        apply=B(T(["Apply", "Easy apply"], ["Inscribirme", "Solicitud sencilla"], ["Postuler", "Candidature simplifiée"], ["Bewerben", "Schnellbewerbung"]),
                verb=T(["apply for {x}", "send my CV for {x}", "go for {x}"], ["apúntame a {x}", "manda mi CV a {x}", "me presento a {x}"], ["postule à {x}", "envoie mon CV pour {x}", "candidate pour {x}"], ["bewirb mich auf {x}", "schick meinen Lebenslauf für {x}", "ich bewerb mich auf {x}"])),
        save=B(T(["Save"], ["Guardar"], ["Sauvegarder"], ["Merken"]), icon="bookmark",
               verb=T(["save {x}", "keep {x} for later", "bookmark {x}"], ["guarda {x}", "deja {x} para luego", "marca {x}"], ["garde {x}", "mets {x} de côté", "sauvegarde {x}"], ["merk dir {x}", "speicher {x}", "heb {x} auf"])),
        hide=B(T(["Not interested", "Hide"], ["No me interesa", "Ocultar"], ["Pas intéressé", "Masquer"], ["Kein Interesse", "Ausblenden"]), icon="x",
               verb=T(["hide {x}", "I don't want {x}", "get {x} off my list"], ["quita {x}", "no quiero {x}", "oculta {x}"], ["cache {x}", "je ne veux pas {x}", "enlève {x}"], ["blende {x} aus", "ich will {x} nicht", "{x} ausblenden"])),
    ),
    extras=dict(
        alert=B(T(["Create job alert"], ["Crear alerta de empleo"], ["Créer une alerte"], ["Jobalarm erstellen"]), icon="bell",
                para=T(["email me new jobs like these", "tell me when something like this comes up"], ["mándame ofertas así por correo", "avísame si sale algo parecido"], ["envoie-moi les nouvelles offres de ce type", "préviens-moi s'il y a un truc pareil"], ["schick mir neue Jobs wie diese", "sag Bescheid, wenn so was reinkommt"])),
        uploadcv=B(T(["Upload CV", "Upload résumé"], ["Subir CV"], ["Importer mon CV"], ["Lebenslauf hochladen"]),
                   para=T(["give them my resume", "attach my résumé"], ["darles mi currículum", "adjuntar mi currículum"], ["leur donner mon CV", "joindre mon CV"], ["meinen Lebenslauf reinstellen", "meine Bewerbungsunterlagen anhängen"])),
    ),
    form=dict(
        what=F("textbox", T(["Job title or keyword"], ["Puesto o palabra clave"], ["Métier ou mot-clé"], ["Jobtitel oder Stichwort"]), T(["what kind of work I want"], ["qué trabajo busco"], ["le genre de boulot que je veux"], ["was für Arbeit ich suche"]),
                 values=T(["designer", "nurse"], ["diseño", "enfermería"], ["design", "infirmier"], ["Design", "Pflege"])),
        where=F("textbox", T(["Location"], ["Ubicación"], ["Lieu"], ["Ort"]), T(["which city", "where the job should be"], ["en qué ciudad", "dónde tiene que ser"], ["dans quelle ville", "où doit être le poste"], ["in welcher Stadt", "wo die Stelle sein soll"]),
                  T(["the location box"], ["la casilla de ubicación"], ["le champ lieu"], ["das Ortsfeld"]), values=CITIES),
        remote=F("checkbox", T(["Remote"], ["En remoto"], ["Télétravail"], ["Homeoffice"]), T(["work from home", "no commute"], ["trabajar desde casa", "sin desplazarme"], ["bosser de chez moi", "pas de trajet"], ["von zu Hause arbeiten", "ohne Pendeln"])),
        fulltime=F("checkbox", T(["Full-time"], ["Jornada completa"], ["Temps plein"], ["Vollzeit"]), T(["forty hours a week"], ["las ocho horas"], ["35 heures par semaine"], ["vierzig Stunden die Woche"])),
        salary=F("combobox", T(["Minimum salary"], ["Salario mínimo"], ["Salaire minimum"], ["Mindestgehalt"]), T(["how much I want to earn at least"], ["cuánto quiero ganar como mínimo"], ["combien je veux gagner au moins"], ["wie viel ich mindestens verdienen will"]),
                   options=T(["Any", "£30,000+", "£50,000+"], ["Cualquiera", "25.000 €+", "40.000 €+"], ["Indifférent", "30 000 €+", "45 000 €+"], ["Egal", "40.000 €+", "60.000 €+"])),
    ),
    form_title=T(["Refine search"], ["Afinar búsqueda"], ["Affiner"], ["Suche verfeinern"]),
    submit=B(T(["Find jobs", "Search"], ["Buscar empleos", "Buscar"], ["Rechercher", "Trouver"], ["Jobs finden", "Suchen"]), T(["show me matching work"], ["enséñame trabajos que encajen"], ["montre-moi les offres qui collent"], ["zeig mir passende Stellen"])),
    absent=T(["the pilot job", "apply for the lawyer position", "the salary calculator", "the cover letter field", "the internships tab", "the LinkedIn import button"],
             ["la oferta de piloto", "preséntate a la de abogado", "la calculadora de sueldo", "el campo de la carta de presentación", "la pestaña de prácticas", "el botón de importar de LinkedIn"],
             ["l'offre de pilote", "postule au poste d'avocat", "le simulateur de salaire", "le champ lettre de motivation", "l'onglet stages", "le bouton importer depuis LinkedIn"],
             ["die Pilotenstelle", "bewirb mich auf die Anwaltsstelle", "den Gehaltsrechner", "das Feld fürs Anschreiben", "den Praktikums-Reiter", "den LinkedIn-Import-Knopf"]),
    sites=[
        dict(brand="Workly", layout="cards", actions=["apply", "save"], icon_actions=False, header=["search", "notif", "account"], top=["alert"], n_items=[8, 9],
             form=["what", "where", "remote", "fulltime"], primary_action="apply"),
        dict(brand="Curro", layout="list", actions=["save", "hide"], icon_actions=True, label_item=True, header=["menu", "account"], top=["uploadcv", "alert"], top_icons=True,
             n_items=[9, 8], form=["where", "salary", "remote"]),
    ],
)

# =============================================================================================
HEADLINES = T(["City council approves new tram line", "Heatwave expected this weekend", "Local team wins the cup final", "Housing prices fall for third month",
               "New museum opens in the old station", "Strike to close schools on Thursday", "Scientists find water on distant moon", "Bakery celebrates 100 years",
               "Election debate: what we learned", "Airport adds ten new routes", "Fuel prices hit record high", "Marathon closes roads on Sunday"],
              ["El ayuntamiento aprueba la nueva línea de tranvía", "Se espera una ola de calor este fin de semana", "El equipo local gana la final de copa", "El precio de la vivienda baja por tercer mes",
               "Abre un museo nuevo en la antigua estación", "La huelga cerrará los colegios el jueves", "Hallan agua en una luna lejana", "Una panadería cumple cien años",
               "Debate electoral: lo que hemos aprendido", "El aeropuerto suma diez rutas nuevas", "El combustible marca un precio récord", "El maratón corta calles el domingo"],
              ["Le conseil municipal valide la nouvelle ligne de tram", "Canicule attendue ce week-end", "L'équipe locale remporte la finale de la coupe", "Les prix de l'immobilier baissent pour le troisième mois",
               "Un nouveau musée dans l'ancienne gare", "Grève : les écoles fermées jeudi", "De l'eau découverte sur une lune lointaine", "Une boulangerie fête ses cent ans",
               "Débat électoral : ce qu'il faut retenir", "L'aéroport ouvre dix nouvelles lignes", "Les carburants atteignent un record", "Le marathon ferme des routes dimanche"],
              ["Stadtrat beschließt neue Straßenbahnlinie", "Hitzewelle am Wochenende erwartet", "Heimteam gewinnt das Pokalfinale", "Immobilienpreise sinken den dritten Monat",
               "Neues Museum im alten Bahnhof eröffnet", "Streik: Schulen bleiben Donnerstag zu", "Wasser auf fernem Mond entdeckt", "Bäckerei feiert 100-jähriges Bestehen",
               "Wahldebatte: Das haben wir gelernt", "Flughafen bekommt zehn neue Ziele", "Spritpreise auf Rekordhoch", "Marathon sperrt Straßen am Sonntag"])
NEWSX = T(["the tram story", "the heatwave article", "the football one", "the housing prices article", "the museum story", "the strike article", "the moon story", "the bakery one",
           "the election debate piece", "the airport story", "the fuel prices article", "the marathon one"],
          ["la del tranvía", "la noticia de la ola de calor", "la del fútbol", "la de la vivienda", "la del museo", "la noticia de la huelga", "la de la luna", "la de la panadería",
           "la del debate electoral", "la del aeropuerto", "la de la gasolina", "la del maratón"],
          ["l'article sur le tram", "celui sur la canicule", "l'article sur le foot", "l'article sur l'immobilier", "celui sur le musée", "l'article sur la grève", "celui sur la lune", "celui sur la boulangerie",
           "l'article sur le débat", "celui sur l'aéroport", "l'article sur les carburants", "celui sur le marathon"],
          ["den Artikel über die Straßenbahn", "den Hitzewellen-Artikel", "den Fußball-Artikel", "den Artikel über die Immobilienpreise", "den Museumsartikel", "den Streik-Artikel", "den Artikel über den Mond", "den Bäckerei-Artikel",
           "den Artikel zur Wahldebatte", "den Flughafen-Artikel", "den Artikel über die Spritpreise", "den Marathon-Artikel"])


def news_items(lang, rng, n):
    idx = rng.sample(range(12), min(n, 12))
    sec = {"en": ["Local", "Weather", "Sport", "Economy", "Culture", "Education", "Science"], "es": ["Local", "Tiempo", "Deportes", "Economía", "Cultura", "Educación", "Ciencia"],
           "fr": ["Région", "Météo", "Sport", "Économie", "Culture", "Éducation", "Sciences"], "de": ["Lokales", "Wetter", "Sport", "Wirtschaft", "Kultur", "Bildung", "Wissenschaft"]}[lang]
    return [dict(title=HEADLINES[lang][i], x=NEWSX[lang][i], b=HEADLINES[lang][i], sub=[rng.choice(sec), f"{rng.randrange(2, 12)} min"]) for i in idx]


KINDS["news"] = dict(
    noun=T(("article", "m"), ("noticia", "f"), ("article", "m"), ("Artikel", "m")),
    pages=["front", "front-evening"],
    h1=T(["Top stories", "Latest news"], ["Portada", "Última hora"], ["À la une", "Dernières infos"], ["Top-Meldungen", "Neueste Nachrichten"]),
    nav=[LNK(T(["World"], ["Internacional"], ["Monde"], ["Welt"])), LNK(T(["Politics"], ["Política"], ["Politique"], ["Politik"])), LNK(T(["Business"], ["Economía"], ["Économie"], ["Wirtschaft"]), T(["the money news"], ["las noticias de dinero"], ["l'actu éco"], ["die Wirtschaftsnachrichten"])),
         LNK(T(["Sport"], ["Deportes"], ["Sport"], ["Sport"]), T(["the football results"], ["los resultados del fútbol"], ["les résultats du foot"], ["die Fußballergebnisse"])), LNK(T(["Culture"], ["Cultura"], ["Culture"], ["Kultur"])),
         LNK(T(["Opinion"], ["Opinión"], ["Opinions"], ["Meinung"]), T(["the columns", "what the columnists think"], ["las columnas", "lo que opinan los columnistas"], ["les tribunes", "l'avis des chroniqueurs"], ["die Kommentare", "was die Kolumnisten denken"]))],
    tabs=[TAB(T(["Latest"], ["Lo último"], ["En continu"], ["Aktuell"])), TAB(T(["Most read"], ["Lo más leído"], ["Les plus lus"], ["Meistgelesen"]), T(["the popular ones"], ["lo que más se lee"], ["les plus populaires"], ["die beliebtesten"])),
          TAB(T(["Local"], ["Local"], ["Près de chez vous"], ["Regional"]))],
    cols=T(["Headline", "Section", "Read"], ["Titular", "Sección", "Lectura"], ["Titre", "Rubrique", "Lecture"], ["Schlagzeile", "Ressort", "Lesezeit"]),
    items=news_items,
    actions=dict(
        save=B(T(["Save for later", "Read later"], ["Guardar para luego", "Leer más tarde"], ["Lire plus tard", "Sauvegarder"], ["Später lesen", "Merken"]), icon="bookmark",
               verb=T(["save {x} for later", "I'll read {x} later"], ["guarda {x} para luego", "{x}, para leer luego"], ["garde {x} pour plus tard", "je lirai {x} plus tard"], ["speicher {x} für später", "{x} les ich später"])),
        share=SHARE,
        listen=B(T(["Listen", "Listen to article"], ["Escuchar", "Escuchar noticia"], ["Écouter", "Écouter l'article"], ["Anhören", "Artikel anhören"]), icon="volume",
                 verb=T(["read {x} out to me", "play {x} aloud"], ["léeme {x} en voz alta", "pon {x} en audio"], ["lis-moi {x}", "mets {x} en audio"], ["lies mir {x} vor", "spiel {x} als Audio ab"])),
    ),
    extras=dict(
        subscribe=B(T(["Subscribe"], ["Suscríbete"], ["S'abonner"], ["Abonnieren"]),
                    para=T(["pay for the paper", "become a member"], ["pagar por el periódico", "hacerme socio"], ["payer pour le journal", "devenir abonné"], ["für die Zeitung bezahlen", "Mitglied werden"])),
        live=B(T(["Live blog"], ["Directo"], ["Direct"], ["Liveblog"]),
               para=T(["the minute by minute updates", "what's happening right now"], ["lo que pasa minuto a minuto", "lo que está pasando ahora"], ["le fil minute par minute", "ce qui se passe en ce moment"], ["die Minute-für-Minute-Updates", "was gerade passiert"])),
    ),
    form=dict(
        nlemail=F("textbox", T(["Your email"], ["Tu correo"], ["Votre e-mail"], ["Deine E-Mail"]), T(["where to send the morning briefing"], ["dónde me mandan el resumen de la mañana"], ["où envoyer le briefing du matin"], ["wohin das Morgen-Briefing soll"]), type="email"),
        daily=F("checkbox", T(["Daily briefing"], ["Resumen diario"], ["Le briefing du jour"], ["Tägliches Briefing"]), T(["a summary every morning"], ["un resumen cada mañana"], ["un résumé chaque matin"], ["jeden Morgen eine Zusammenfassung"])),
        breaking=F("checkbox", T(["Breaking news alerts"], ["Alertas de última hora"], ["Alertes info"], ["Eilmeldungen"]), T(["ping me when something big happens"], ["avísame si pasa algo gordo"], ["préviens-moi s'il se passe un truc important"], ["sag Bescheid, wenn was Großes passiert"])),
    ),
    form_title=T(["Newsletters"], ["Boletines"], ["Newsletters"], ["Newsletter"]),
    submit=B(T(["Sign up"], ["Apuntarme"], ["Je m'inscris"], ["Anmelden"]), T(["put me on the list"], ["apúntame a la lista"], ["inscris-moi"], ["trag mich ein"])),
    absent=T(["the crossword", "the horoscope", "save the royal wedding story", "the weather widget", "the podcast player", "the comments section"],
             ["el crucigrama", "el horóscopo", "guarda la de la boda real", "el tiempo de mañana", "el reproductor del pódcast", "los comentarios"],
             ["les mots croisés", "l'horoscope", "garde l'article sur le mariage royal", "la météo de demain", "le lecteur de podcast", "les commentaires"],
             ["das Kreuzworträtsel", "das Horoskop", "speicher den Artikel über die Königshochzeit", "das Wetter-Widget", "den Podcast-Player", "die Kommentarspalte"]),
    sites=[
        dict(brand="The Daily Ledger", layout="list", actions=["save", "share"], icon_actions=True, header=["menu", "search", "account"], top=["subscribe", "live"],
             n_items=[10, 9], form=["nlemail", "daily", "breaking"], pager=False),
        dict(brand="El Faro", layout="cards", actions=["listen", "save"], icon_actions=False, header=["search", "account"], top=["live"],
             n_items=[9, 8], form=["nlemail", "breaking"], pager=True),
    ],
)
