"""Shared vocabulary of the field generator: languages, people/cities, icons, the controls every
kind of app has (header, pager, footer, dialogs), and the spoken templates per description kind.

Conventions (all hand-written, per language, not translated word for word):
  T(en, es, fr, de)      a value per language.
  name                   the control's on-screen name (a list: sites pick a variant).
  para                   paraphrases: what a caller says for it without its name's words.
  role                   role-word noun phrases ("the search box"), German in the accusative.
  verb                   row actions only: "{x}" is the item ("the email from Sarah").
  icon                   key into ICONS when the control is an icon-only button.
"""

LANGS = ("en", "es", "fr", "de")


def T(en, es, fr, de):
    return {"en": en, "es": es, "fr": fr, "de": de}


FIRST = T(
    ["Sarah", "James", "Emily", "Michael", "Olivia", "Daniel", "Grace", "Tom", "Hannah", "Ben", "Chloe", "Ryan", "Megan", "Liam"],
    ["Lucía", "Javier", "Carmen", "Pablo", "Marta", "Diego", "Elena", "Sergio", "Paula", "Andrés", "Irene", "Raúl", "Nuria", "Álvaro"],
    ["Camille", "Julien", "Chloé", "Mathieu", "Léa", "Antoine", "Manon", "Nicolas", "Inès", "Thomas", "Claire", "Hugo", "Sophie", "Baptiste"],
    ["Anna", "Lukas", "Lena", "Jonas", "Katrin", "Felix", "Sophie", "Tobias", "Miriam", "Jan", "Laura", "Stefan", "Julia", "Moritz"],
)
LAST = T(
    ["Miller", "Johnson", "Carter", "Brooks", "Hayes", "Turner", "Walsh", "Reed", "Patel", "Quinn"],
    ["García", "Martínez", "López", "Sánchez", "Romero", "Navarro", "Torres", "Ruiz", "Ortega", "Castro"],
    ["Martin", "Bernard", "Dubois", "Moreau", "Laurent", "Lefèvre", "Girard", "Roux", "Fontaine", "Chevalier"],
    ["Müller", "Schmidt", "Weber", "Fischer", "Wagner", "Becker", "Hoffmann", "Schulz", "Krüger", "Vogel"],
)
CITIES = T(
    ["London", "Manchester", "Edinburgh", "Bristol", "Dublin", "Boston", "Chicago", "Seattle", "Leeds", "Denver"],
    ["Madrid", "Sevilla", "Valencia", "Bilbao", "Málaga", "Zaragoza", "Granada", "Salamanca", "Córdoba", "Vigo"],
    ["Lyon", "Marseille", "Bordeaux", "Nantes", "Lille", "Toulouse", "Strasbourg", "Rennes", "Nice", "Dijon"],
    ["Berlin", "Hamburg", "München", "Köln", "Leipzig", "Dresden", "Freiburg", "Bremen", "Nürnberg", "Kiel"],
)
MONTHS = T(
    ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
    ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"],
    ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"],
    ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"],
)
WEEKDAYS = T(
    ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"],
    ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
    ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
)

# --------------------------------------------------------------------------------------------
# Ordinals. gender: m / f / n (German neuter); English ignores it.
# --------------------------------------------------------------------------------------------
_ORD_EN = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth"]
_ORD_EN_NUM = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th", "11th", "12th", "13th", "14th"]
_ORD_ES = ["primer", "segund", "tercer", "cuart", "quint", "sext", "séptim", "octav", "noven", "décim", "undécim", "duodécim", "decimotercer", "decimocuart"]
_ORD_FR = ["premier", "deuxième", "troisième", "quatrième", "cinquième", "sixième", "septième", "huitième", "neuvième", "dixième", "onzième", "douzième", "treizième", "quatorzième"]
_ORD_DE = ["erst", "zweit", "dritt", "viert", "fünft", "sechst", "siebt", "acht", "neunt", "zehnt", "elft", "zwölft", "dreizehnt", "vierzehnt"]


def ordinal(lang, i, gender="m", numeric=False):
    """Adjective for position i (0-based), in the form that follows the definite article
    (German: accusative, weak declension)."""
    if lang == "en":
        return (_ORD_EN_NUM if numeric else _ORD_EN)[i]
    if lang == "es":
        stem = _ORD_ES[i]
        if gender == "f":
            return stem + "a"
        return stem if i in (0, 2, 12) else stem + "o"
    if lang == "fr":
        if i == 0:
            return "première" if gender == "f" else "premier"
        return _ORD_FR[i]
    stem = _ORD_DE[i]
    return stem + ("en" if gender == "m" else "e")


def last_word(lang, gender="m"):
    return {"en": "last", "es": "última" if gender == "f" else "último",
            "fr": "dernière" if gender == "f" else "dernier",
            "de": "letzten" if gender == "m" else "letzte"}[lang]


def article(lang, gender="m"):
    """Definite article before a noun phrase (German accusative)."""
    if lang == "en":
        return "the"
    if lang == "es":
        return "la" if gender == "f" else "el"
    if lang == "fr":
        return "la" if gender == "f" else "le"
    return {"m": "den", "f": "die", "n": "das"}[gender]


# --------------------------------------------------------------------------------------------
# Icons: what callers call an icon-only button by its picture. German in the accusative.
# --------------------------------------------------------------------------------------------
ICONS = {
    "x": T(["the X", "the little cross", "the x in the corner", "that little x"],
           ["la X", "la crucecita", "la equis de la esquina", "la cruz"],
           ["la croix", "le petit x", "la petite croix dans le coin", "le x"],
           ["das X", "das kleine Kreuz", "das Kreuzchen oben", "das x in der Ecke"]),
    "trash": T(["the trash can", "the little bin", "the bin icon", "the garbage can"],
               ["la papelera", "el icono de la papelera", "el cubo de basura", "la papelerita"],
               ["la poubelle", "l'icône poubelle", "la petite poubelle", "la corbeille"],
               ["den Mülleimer", "das Mülleimer-Symbol", "den kleinen Papierkorb", "die Mülltonne"]),
    "dots": T(["the three dots", "the dots menu", "the little dots", "the three dot thing"],
              ["los tres puntitos", "el menú de los tres puntos", "los puntitos", "los tres puntos"],
              ["les trois petits points", "le menu à trois points", "les points", "les trois points"],
              ["die drei Punkte", "das Drei-Punkte-Menü", "die Pünktchen", "die drei Pünktchen"]),
    "gear": T(["the gear", "the cog", "the little gear icon", "the cogwheel"],
              ["el engranaje", "la ruedita", "la tuerca", "el icono del engranaje"],
              ["l'engrenage", "la roue dentée", "la petite roue", "l'icône engrenage"],
              ["das Zahnrad", "das kleine Zahnrad", "das Rädchen", "das Zahnrad-Symbol"]),
    "bell": T(["the bell", "the little bell", "the bell icon"],
              ["la campana", "la campanita", "el icono de la campana"],
              ["la cloche", "la petite cloche", "l'icône cloche"],
              ["die Glocke", "das Glöckchen", "das Glocken-Symbol"]),
    "pencil": T(["the pencil", "the little pen", "the pencil icon"],
                ["el lápiz", "el lapicito", "el icono del lápiz"],
                ["le crayon", "le petit stylo", "l'icône crayon"],
                ["den Stift", "den kleinen Bleistift", "das Stift-Symbol"]),
    "magnifier": T(["the magnifying glass", "the little magnifier", "the magnifying glass icon"],
                   ["la lupa", "la lupita", "el icono de la lupa"],
                   ["la loupe", "la petite loupe", "l'icône loupe"],
                   ["die Lupe", "das Lupen-Symbol", "die kleine Lupe"]),
    "heart": T(["the heart", "the little heart", "the heart icon"],
               ["el corazón", "el corazoncito", "el icono del corazón"],
               ["le cœur", "le petit cœur", "l'icône cœur"],
               ["das Herz", "das Herzchen", "das Herz-Symbol"]),
    "star": T(["the star", "the little star", "the star icon"],
              ["la estrella", "la estrellita", "el icono de la estrella"],
              ["l'étoile", "la petite étoile", "l'icône étoile"],
              ["den Stern", "das Sternchen", "das Stern-Symbol"]),
    "plus": T(["the plus", "the plus sign", "the little plus", "the big plus button"],
              ["el más", "el signo más", "el botón del más", "el símbolo de más"],
              ["le plus", "le signe plus", "le petit plus", "le bouton plus"],
              ["das Plus", "das Pluszeichen", "das kleine Plus", "den Plus-Knopf"]),
    "minus": T(["the minus", "the minus sign", "the little dash"],
               ["el menos", "el signo menos", "la rayita"],
               ["le moins", "le signe moins", "le petit tiret"],
               ["das Minus", "das Minuszeichen", "den kleinen Strich"]),
    "share": T(["the share icon", "the arrow thing to share", "the little share arrow"],
               ["el icono de compartir", "la flechita de compartir", "el símbolo de compartir"],
               ["l'icône de partage", "la petite flèche de partage", "le symbole partager"],
               ["das Teilen-Symbol", "den kleinen Teilen-Pfeil", "das Share-Icon"]),
    "download": T(["the download arrow", "the arrow pointing down", "the down arrow icon"],
                  ["la flecha de descarga", "la flechita hacia abajo", "el icono de descarga"],
                  ["la flèche de téléchargement", "la flèche vers le bas", "l'icône télécharger"],
                  ["den Download-Pfeil", "den Pfeil nach unten", "das Download-Symbol"]),
    "hamburger": T(["the hamburger", "the three lines", "the burger menu", "the three little lines"],
                   ["la hamburguesa", "las tres rayas", "el menú de las tres líneas", "las tres rayitas"],
                   ["le hamburger", "les trois traits", "le menu burger", "les trois barres"],
                   ["das Hamburger-Menü", "die drei Striche", "das Burger-Menü", "die drei Linien"]),
    "user": T(["the little person", "the avatar", "the person icon", "the profile picture thing"],
              ["el muñequito", "el avatar", "el icono de la persona", "la silueta"],
              ["le petit bonhomme", "l'avatar", "l'icône profil", "la silhouette"],
              ["das Männchen", "den Avatar", "das Personen-Symbol", "das kleine Profilbild"]),
    "cart": T(["the cart icon", "the little trolley", "the shopping cart picture"],
              ["el carrito", "el icono del carrito", "el carrito de la compra"],
              ["le caddie", "l'icône panier", "le petit chariot"],
              ["das Wagen-Symbol", "den kleinen Einkaufswagen", "das Korb-Symbol"]),
    "filter": T(["the funnel", "the filter icon", "the little funnel"],
                ["el embudo", "el icono del filtro", "el embudito"],
                ["l'entonnoir", "l'icône filtre", "le petit entonnoir"],
                ["den Trichter", "das Filter-Symbol", "den kleinen Trichter"]),
    "printer": T(["the printer", "the printer icon", "the little printer"],
                 ["la impresora", "el icono de la impresora", "la impresorita"],
                 ["l'imprimante", "l'icône imprimante", "la petite imprimante"],
                 ["den Drucker", "das Drucker-Symbol", "den kleinen Drucker"]),
    "refresh": T(["the circle arrow", "the refresh arrows", "the round arrow"],
                 ["la flecha circular", "las flechitas de recargar", "la flecha redonda"],
                 ["la flèche circulaire", "les flèches qui tournent", "la flèche ronde"],
                 ["den Kreispfeil", "die Pfeile im Kreis", "den runden Pfeil"]),
    "left": T(["the left arrow", "the arrow pointing left", "the little back arrow"],
              ["la flecha izquierda", "la flechita a la izquierda", "la flecha hacia atrás"],
              ["la flèche gauche", "la flèche vers la gauche", "la petite flèche retour"],
              ["den Pfeil nach links", "den linken Pfeil", "den kleinen Zurück-Pfeil"]),
    "right": T(["the right arrow", "the arrow pointing right", "the little forward arrow"],
               ["la flecha derecha", "la flechita a la derecha", "la flecha hacia delante"],
               ["la flèche droite", "la flèche vers la droite", "la petite flèche suivante"],
               ["den Pfeil nach rechts", "den rechten Pfeil", "den kleinen Weiter-Pfeil"]),
    "play": T(["the play triangle", "the little triangle", "the play arrow"],
              ["el triángulo", "el triangulito de play", "el botón del triángulo"],
              ["le triangle", "le petit triangle", "la flèche lecture"],
              ["das Dreieck", "das kleine Dreieck", "den Play-Pfeil"]),
    "pause": T(["the two bars", "the pause bars", "the two little lines"],
               ["las dos rayitas", "las dos barras", "el símbolo de pausa"],
               ["les deux barres", "les deux petits traits", "le symbole pause"],
               ["die zwei Striche", "die Pausenbalken", "die zwei kleinen Balken"]),
    "skip": T(["the double arrow", "the skip arrows", "the arrows with the line"],
              ["la flecha doble", "las flechas de saltar", "la doble flechita"],
              ["la double flèche", "les flèches pour sauter", "la flèche avec la barre"],
              ["den Doppelpfeil", "die Sprung-Pfeile", "die Pfeile mit dem Strich"]),
    "paperclip": T(["the paperclip", "the little clip", "the paperclip icon"],
                   ["el clip", "el clip de adjuntar", "el icono del clip"],
                   ["le trombone", "la petite agrafe", "l'icône trombone"],
                   ["die Büroklammer", "die kleine Klammer", "das Büroklammer-Symbol"]),
    "plane": T(["the paper plane", "the little plane", "the arrow plane thing"],
               ["el avioncito", "el avión de papel", "la flecha de enviar"],
               ["l'avion en papier", "le petit avion", "la flèche d'envoi"],
               ["den Papierflieger", "den kleinen Flieger", "das Senden-Dreieck"]),
    "phone": T(["the phone", "the little phone", "the phone icon"],
               ["el teléfono", "el telefonito", "el icono del teléfono"],
               ["le téléphone", "le petit combiné", "l'icône téléphone"],
               ["den Hörer", "das Telefon-Symbol", "das kleine Telefon"]),
    "question": T(["the question mark", "the little question mark", "the question mark icon"],
                  ["la interrogación", "el signo de interrogación", "el iconito de la pregunta"],
                  ["le point d'interrogation", "le petit point d'interrogation", "l'icône point d'interrogation"],
                  ["das Fragezeichen", "das kleine Fragezeichen", "das Fragezeichen-Symbol"]),
    "bookmark": T(["the bookmark ribbon", "the little flag", "the bookmark icon"],
                  ["el marcapáginas", "la banderita", "el icono de guardar"],
                  ["le marque-page", "le petit ruban", "l'icône signet"],
                  ["das Lesezeichen", "das kleine Fähnchen", "das Lesezeichen-Symbol"]),
    "eye": T(["the eye", "the little eye", "the eye icon"],
             ["el ojo", "el ojito", "el icono del ojo"],
             ["l'œil", "le petit œil", "l'icône œil"],
             ["das Auge", "das kleine Auge", "das Augen-Symbol"]),
    "chat": T(["the speech bubble", "the little bubble", "the comment bubble"],
              ["el bocadillo", "la burbuja", "el globito de comentar"],
              ["la bulle", "la petite bulle", "la bulle de commentaire"],
              ["die Sprechblase", "die kleine Blase", "das Kommentar-Symbol"]),
    "volume": T(["the speaker", "the loudspeaker icon", "the little speaker"],
                ["el altavoz", "el altavocito", "el icono del volumen"],
                ["le haut-parleur", "l'icône volume", "le petit haut-parleur"],
                ["den Lautsprecher", "das Lautsprecher-Symbol", "den kleinen Lautsprecher"]),
    "expand": T(["the four arrows", "the corners icon", "the square with arrows"],
                ["las cuatro flechas", "las esquinitas", "el cuadradito con flechas"],
                ["les quatre flèches", "les petits coins", "le carré avec les flèches"],
                ["die vier Pfeile", "die Ecken", "das Quadrat mit den Pfeilen"]),
}

# SVG path per icon (the picture is decorative: aria-hidden, the button carries the name).
ICON_PATHS = {
    "x": "M6 6l12 12M18 6L6 18", "trash": "M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13",
    "dots": "M5 12h.01M12 12h.01M19 12h.01", "gear": "M12 8a4 4 0 100 8 4 4 0 000-8zM12 2v3M12 19v3",
    "bell": "M6 17V11a6 6 0 0112 0v6l2 2H4z", "pencil": "M4 20l4-1 11-11-3-3L5 16z",
    "magnifier": "M11 4a7 7 0 100 14 7 7 0 000-14zM21 21l-5-5", "heart": "M12 21l-8-8a5 5 0 018-6 5 5 0 018 6z",
    "star": "M12 3l3 6 6 1-4.5 4 1 6-5.5-3-5.5 3 1-6L3 10l6-1z", "plus": "M12 5v14M5 12h14", "minus": "M5 12h14",
    "share": "M4 12v8h16v-8M12 3v12M7 8l5-5 5 5", "download": "M12 3v12M7 10l5 5 5-5M4 21h16",
    "hamburger": "M4 6h16M4 12h16M4 18h16", "user": "M12 12a4 4 0 100-8 4 4 0 000 8zM4 21a8 8 0 0116 0",
    "cart": "M3 4h2l3 12h11l2-8H7", "filter": "M3 4h18l-7 9v6l-4 2v-8z", "printer": "M6 9V3h12v6M6 18h12v4H6z",
    "refresh": "M4 12a8 8 0 0114-5l2 2M20 12a8 8 0 01-14 5l-2-2", "left": "M15 5l-7 7 7 7", "right": "M9 5l7 7-7 7",
    "play": "M7 4l13 8-13 8z", "pause": "M7 4h3v16H7zM14 4h3v16h-3z", "skip": "M5 4l9 8-9 8zM18 4v16",
    "paperclip": "M8 12l6-6a3 3 0 014 4l-8 8a5 5 0 01-7-7l7-7", "plane": "M3 11l18-8-8 18-2-8z",
    "phone": "M5 3h4l2 5-3 2a11 11 0 006 6l2-3 5 2v4a2 2 0 01-2 2A17 17 0 013 5a2 2 0 012-2",
    "question": "M9 9a3 3 0 116 0c0 2-3 2-3 5M12 18h.01", "bookmark": "M6 3h12v18l-6-4-6 4z",
    "eye": "M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12z", "chat": "M4 4h16v12H8l-4 4z",
    "volume": "M4 9h4l5-4v14l-5-4H4zM17 8a5 5 0 010 8", "expand": "M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5",
}

# --------------------------------------------------------------------------------------------
# Controls shared by many kinds. r = ARIA role the HTML will have.
# --------------------------------------------------------------------------------------------
SHARED = {
    "search": dict(r="textbox",
        name=T(["Search", "Search…"], ["Buscar", "Buscar…"], ["Rechercher", "Recherche"], ["Suchen", "Suche"]),
        para=T(["where I can look something up", "the place to type what I'm looking for", "let me look something up"],
               ["donde se escribe lo que busco", "quiero buscar algo", "el sitio para escribir lo que quiero encontrar"],
               ["là où je tape ce que je cherche", "je veux chercher un truc", "l'endroit pour taper ma recherche"],
               ["da wo ich was eintippen kann, um es zu finden", "ich will was nachschauen", "wo gebe ich ein, was ich suche"]),
        role=T(["the search box", "the search bar", "the search field"],
               ["la barra de búsqueda", "el buscador", "el cuadro de búsqueda"],
               ["la barre de recherche", "le champ de recherche", "la zone de recherche"],
               ["das Suchfeld", "die Suchleiste", "den Suchschlitz"])),
    "search_btn": dict(r="button", icon="magnifier",
        name=T(["Search", "Go"], ["Buscar", "Ir"], ["Rechercher", "OK"], ["Suchen", "Los"]),
        para=T(["the go button", "run the search", "look it up"],
               ["lanza la búsqueda", "el botón para que busque", "dale a que busque"],
               ["lance la recherche", "le bouton pour valider la recherche", "vas-y, cherche"],
               ["die Suche starten", "den Knopf zum Abschicken der Suche", "such das jetzt"])),
    "notif": dict(r="button", icon="bell",
        name=T(["Notifications", "Alerts"], ["Notificaciones", "Avisos"], ["Notifications", "Alertes"], ["Benachrichtigungen", "Mitteilungen"]),
        para=T(["what's new for me", "show me my alerts", "anything new?"],
               ["mis avisos nuevos", "qué novedades tengo", "a ver si tengo algo nuevo"],
               ["mes nouveautés", "qu'est-ce qu'il y a de neuf pour moi", "voir si j'ai des alertes"],
               ["was gibt's Neues für mich", "meine Hinweise anzeigen", "zeig mir die neuen Meldungen"])),
    "settings": dict(r="button", icon="gear",
        name=T(["Settings", "Preferences"], ["Ajustes", "Configuración"], ["Paramètres", "Réglages"], ["Einstellungen", "Optionen"]),
        para=T(["where I change how things work", "the options", "configure the app"],
               ["donde cambio las opciones", "las preferencias", "configurar la aplicación"],
               ["là où on règle les options", "les préférences", "configurer l'appli"],
               ["da wo man alles einstellt", "die Konfiguration", "die App einrichten"])),
    "help": dict(r="button", icon="question",
        name=T(["Help", "Support"], ["Ayuda", "Soporte"], ["Aide", "Assistance"], ["Hilfe", "Support"]),
        para=T(["I need assistance", "where do I get some guidance", "I'm stuck, show me how this works"],
               ["necesito que me echen una mano", "no entiendo nada, ¿dónde me explican?", "quiero que me orienten"],
               ["j'ai besoin qu'on m'explique", "je suis perdu, où est le mode d'emploi", "qu'on me dépanne"],
               ["ich brauche Unterstützung", "wo wird mir das erklärt", "ich komm nicht weiter"])),
    "account": dict(r="button", icon="user",
        name=T(["Account", "Profile"], ["Cuenta", "Mi perfil"], ["Compte", "Mon profil"], ["Konto", "Profil"]),
        para=T(["my stuff", "my personal page", "me, my details"],
               ["mis datos", "lo mío, mi página personal", "mis datos personales"],
               ["mes infos perso", "ma page perso", "mes coordonnées"],
               ["meine Daten", "meine persönliche Seite", "mein Benutzer"])),
    "menu": dict(r="button", icon="hamburger",
        name=T(["Menu", "Open menu"], ["Menú", "Abrir menú"], ["Menu", "Ouvrir le menu"], ["Menü", "Menü öffnen"]),
        para=T(["show me all the sections", "the navigation drawer", "open the side panel"],
               ["enséñame todas las secciones", "abre el panel lateral", "el cajón de navegación"],
               ["montre-moi toutes les rubriques", "ouvre le panneau latéral", "le tiroir de navigation"],
               ["zeig mir alle Bereiche", "die Seitenleiste aufklappen", "die Navigation ausklappen"])),
    "signout": dict(r="button",
        name=T(["Sign out", "Log out"], ["Cerrar sesión", "Salir"], ["Se déconnecter", "Déconnexion"], ["Abmelden", "Ausloggen"]),
        para=T(["I'm done, leave my account", "get me out of here", "end my session"],
               ["quiero salirme de mi cuenta", "termina mi sesión", "me voy, desconéctame"],
               ["quitter mon compte", "je veux sortir de mon compte", "fermer ma session"],
               ["raus aus meinem Konto", "Sitzung beenden", "ich will mich ausloggen"])),
    "close": dict(r="button", icon="x",
        name=T(["Close", "Dismiss"], ["Cerrar", "Descartar"], ["Fermer", "Ignorer"], ["Schließen", "Ausblenden"]),
        para=T(["make this go away", "get rid of this popup", "shut this window"],
               ["quita esta ventana", "que se vaya este aviso", "quítame esto de en medio"],
               ["fais disparaître cette fenêtre", "enlève ce pop-up", "vire ce truc"],
               ["mach das Fenster zu", "weg mit dem Popup", "das Ding da wegmachen"])),
    "prev": dict(r="button", icon="left",
        name=T(["Previous", "Previous page"], ["Anterior", "Página anterior"], ["Précédent", "Page précédente"], ["Zurück", "Vorherige Seite"]),
        para=T(["go back a page", "the page before", "back one page"],
               ["vuelve una página atrás", "la página de antes", "retrocede una página"],
               ["reviens une page en arrière", "la page d'avant", "recule d'une page"],
               ["eine Seite zurück", "die Seite davor", "geh zurückblättern"])),
    "next": dict(r="button", icon="right",
        name=T(["Next", "Next page"], ["Siguiente", "Página siguiente"], ["Suivant", "Page suivante"], ["Weiter", "Nächste Seite"]),
        para=T(["more results", "the following page", "turn the page"],
               ["pasa de página", "la página que viene", "más resultados"],
               ["tourne la page", "la page d'après", "plus de résultats"],
               ["umblättern", "die Seite danach", "mehr Ergebnisse"])),
    "cancel": dict(r="button",
        name=T(["Cancel", "Discard"], ["Cancelar", "Descartar cambios"], ["Annuler", "Abandonner"], ["Abbrechen", "Verwerfen"]),
        para=T(["never mind", "forget it", "don't do it"],
               ["déjalo, no quiero", "olvídalo", "mejor no"],
               ["laisse tomber", "finalement non", "oublie ça"],
               ["lass es", "doch nicht", "vergiss es"])),
    "save": dict(r="button",
        name=T(["Save", "Save changes"], ["Guardar", "Guardar cambios"], ["Enregistrer", "Sauvegarder"], ["Speichern", "Änderungen speichern"]),
        para=T(["keep my changes", "store this", "make it stick"],
               ["que no se pierdan los cambios", "quédate con lo que he puesto", "que se queden los cambios"],
               ["garde mes modifs", "conserve ce que j'ai mis", "valide mes changements"],
               ["meine Änderungen behalten", "das sichern", "übernimm das"])),
}

FOOTER = [
    ("about", T(["About us", "About"], ["Quiénes somos", "Sobre nosotros"], ["Qui sommes-nous", "À propos"], ["Über uns", "Unternehmen"]),
     T(["who runs this site", "the company info"], ["quién está detrás de esto", "la info de la empresa"], ["qui est derrière ce site", "les infos sur la boîte"], ["wer hinter der Seite steckt", "Infos zur Firma"])),
    ("careers", T(["Careers", "Jobs"], ["Empleo", "Trabaja con nosotros"], ["Carrières", "Recrutement"], ["Karriere", "Jobs"]),
     T(["working for them", "their vacancies"], ["trabajar con ellos", "sus ofertas de trabajo"], ["travailler chez eux", "leurs offres d'emploi"], ["bei denen arbeiten", "offene Stellen bei denen"])),
    ("privacy", T(["Privacy", "Privacy policy"], ["Privacidad", "Política de privacidad"], ["Confidentialité", "Politique de confidentialité"], ["Datenschutz", "Datenschutzerklärung"]),
     T(["what they do with my data", "the data protection stuff"], ["qué hacen con mis datos", "lo de la protección de datos"], ["ce qu'ils font de mes données", "le truc sur les données perso"], ["was die mit meinen Daten machen", "das mit dem Datenschutz"])),
    ("terms", T(["Terms", "Terms of use"], ["Condiciones", "Términos de uso"], ["Conditions", "CGU"], ["AGB", "Nutzungsbedingungen"]),
     T(["the small print", "the legal conditions"], ["la letra pequeña", "las condiciones legales"], ["les petites lignes", "les conditions légales"], ["das Kleingedruckte", "die rechtlichen Bedingungen"])),
    ("cookies", T(["Cookies", "Cookie settings"], ["Cookies", "Configurar cookies"], ["Cookies", "Gestion des cookies"], ["Cookies", "Cookie-Einstellungen"]),
     T(["the tracking preferences", "turn off the trackers"], ["lo del rastreo", "quitar los rastreadores"], ["le pistage", "désactiver les traceurs"], ["das Tracking abstellen", "die Tracker-Optionen"])),
    ("contact", T(["Contact", "Contact us"], ["Contacto", "Contáctanos"], ["Contact", "Nous contacter"], ["Kontakt", "Kontaktieren"]),
     T(["how do I reach them", "write to the company"], ["cómo les escribo", "hablar con la empresa"], ["comment les joindre", "écrire à l'entreprise"], ["wie erreiche ich die", "der Firma schreiben"])),
    ("helpcenter", T(["Help center", "FAQ"], ["Centro de ayuda", "Preguntas frecuentes"], ["Centre d'aide", "FAQ"], ["Hilfe-Center", "FAQ"]),
     T(["the common questions", "the answers to usual problems"], ["las dudas típicas", "las respuestas a lo de siempre"], ["les questions qu'on pose souvent", "les réponses aux problèmes courants"], ["die häufigen Fragen", "Antworten auf die üblichen Probleme"])),
    ("accessibility", T(["Accessibility"], ["Accesibilidad"], ["Accessibilité"], ["Barrierefreiheit"]),
     T(["the disability access page"], ["lo de las personas con discapacidad"], ["la page pour les personnes handicapées"], ["die Seite für Menschen mit Behinderung"])),
    ("blog", T(["Blog"], ["Blog"], ["Blog"], ["Blog"]),
     T(["their articles"], ["sus artículos"], ["leurs articles"], ["deren Artikel"])),
    ("press", T(["Press", "Newsroom"], ["Prensa", "Sala de prensa"], ["Presse", "Espace presse"], ["Presse", "Pressebereich"]),
     T(["the stuff for journalists"], ["lo de los periodistas"], ["le coin des journalistes"], ["das für Journalisten"])),
    ("status", T(["System status", "Status"], ["Estado del servicio", "Estado"], ["État du service", "Statut"], ["Systemstatus", "Status"]),
     T(["is the service down", "whether everything is working"], ["si el servicio está caído", "si todo funciona"], ["si le service est en panne", "si tout marche"], ["ob der Dienst gerade ausgefallen ist", "ob alles läuft"])),
    ("sitemap", T(["Sitemap"], ["Mapa del sitio"], ["Plan du site"], ["Sitemap"]),
     T(["the list of every page"], ["la lista de todas las páginas"], ["la liste de toutes les pages"], ["die Liste aller Seiten"])),
    ("developers", T(["Developers", "API"], ["Desarrolladores", "API"], ["Développeurs", "API"], ["Entwickler", "API"]),
     T(["the programmer docs"], ["lo de los programadores"], ["la doc pour les programmeurs"], ["die Doku für Programmierer"])),
    ("imprint", T(["Legal notice", "Imprint"], ["Aviso legal", "Información legal"], ["Mentions légales", "Informations légales"], ["Impressum", "Rechtliches"]),
     T(["the legal info"], ["los datos legales"], ["les infos légales"], ["die rechtlichen Angaben"])),
    ("app", T(["Get the app", "Mobile app"], ["Descarga la app", "App móvil"], ["Télécharger l'appli", "Appli mobile"], ["App herunterladen", "Mobile App"]),
     T(["put it on my phone"], ["tenerlo en el móvil"], ["l'avoir sur mon téléphone"], ["das aufs Handy holen"])),
    ("partners", T(["Partners", "Affiliates"], ["Socios", "Afiliados"], ["Partenaires", "Affiliation"], ["Partner", "Partnerprogramm"]),
     T(["the partner program"], ["el programa de socios"], ["le programme partenaires"], ["das Partnerprogramm"])),
]

# --------------------------------------------------------------------------------------------
# Role nouns for the generic role kind ("the checkbox" when there is exactly one).
# --------------------------------------------------------------------------------------------
ROLE_NOUN = {
    "textbox": T(["the text field", "the text box", "the input box"], ["el campo de texto", "la caja de texto"], ["le champ de texte", "la zone de saisie"], ["das Textfeld", "das Eingabefeld"]),
    "combobox": T(["the dropdown", "the drop-down menu", "the select box"], ["el desplegable", "la lista desplegable"], ["la liste déroulante", "le menu déroulant"], ["das Dropdown", "die Auswahlliste", "das Aufklappmenü"]),
    "checkbox": T(["the checkbox", "the tick box", "the little box"], ["la casilla", "el recuadro para marcar"], ["la case à cocher", "la petite case"], ["das Kästchen", "die Checkbox", "das Häkchenfeld"]),
    "radio": T(["the radio button", "the round option"], ["el botón de opción", "el circulito"], ["le bouton radio", "le petit rond"], ["den Radiobutton", "das runde Auswahlfeld"]),
    "switch": T(["the toggle", "the switch"], ["el interruptor", "el botoncito deslizante"], ["l'interrupteur", "le bouton à glissière"], ["den Schalter", "den Kippschalter"]),
    "tab": T(["the tab"], ["la pestaña"], ["l'onglet"], ["den Reiter"]),
}

# How a control's own name is framed, by role. {n} = the name. German: accusative.
NAME_FRAME = {
    "button": T(["the {n} button", "{n} button"], ["el botón {n}", "el botón de {n}"], ["le bouton {n}", "le bouton « {n} »"], ["den {n}-Button", "den Knopf {n}", "die Schaltfläche {n}"]),
    "link": T(["the {n} link", "{n} link"], ["el enlace {n}", "el link de {n}"], ["le lien {n}", "le lien « {n} »"], ["den Link {n}", "den {n}-Link"]),
    "textbox": T(["the {n} field", "the {n} box"], ["el campo {n}", "la casilla de {n}"], ["le champ {n}", "la case {n}"], ["das Feld {n}", "das {n}-Feld"]),
    "checkbox": T(["the {n} checkbox", "the {n} box"], ["la casilla {n}", "la opción {n}"], ["la case {n}", "la case « {n} »"], ["das Kästchen {n}", "die Checkbox {n}"]),
    "combobox": T(["the {n} dropdown", "the {n} menu"], ["el desplegable {n}", "la lista {n}"], ["la liste {n}", "le menu {n}"], ["das Dropdown {n}", "die Auswahl {n}"]),
    "tab": T(["the {n} tab"], ["la pestaña {n}"], ["l'onglet {n}"], ["den Reiter {n}", "den Tab {n}"]),
    "switch": T(["the {n} toggle", "the {n} switch"], ["el interruptor {n}"], ["l'interrupteur {n}"], ["den Schalter {n}"]),
    "radio": T(["the {n} option"], ["la opción {n}"], ["l'option {n}"], ["die Option {n}"]),
}

# Spoken wrappers. A description is prefix + core (+ suffix); cores are noun phrases or commands.
# Index-tagged: a site uses a template when index % 3 != its family (so test sites keep some
# phrasings train never saw).
CMD = T(["{x}", "click {x}", "press {x}", "hit {x}", "tap {x}", "go to {x}", "can you click {x}", "I want {x}", "select {x}"],
        ["{x}", "pulsa {x}", "haz clic en {x}", "toca {x}", "clica en {x}", "selecciona {x}", "dale clic a {x}", "quiero {x}", "ve a {x}"],
        ["{x}", "clique sur {x}", "appuie sur {x}", "sélectionne {x}", "va sur {x}", "tu peux cliquer sur {x}", "je veux {x}", "touche {x}", "choisis {x}"],
        ["{x}", "klick auf {x}", "drück mal auf {x}", "{x} anklicken", "tipp auf {x}", "geh auf {x}", "kannst du auf {x} klicken", "ich will {x}", "klick mal {x} an"])
FILLER = T(["", "", "", "uh ", "um, ", "okay ", "so "], ["", "", "", "eh, ", "a ver, ", "pues ", "vale, "],
           ["", "", "", "euh ", "alors ", "bon, ", "bah "], ["", "", "", "äh ", "also ", "ähm, ", "na ja, "])
SUFFIX = T(["", "", "", " please", ", please"], ["", "", "", " por favor", ", porfa"], ["", "", "", " s'il te plaît", " stp"], ["", "", "", " bitte", ", bitte"])

# State phrases (target: the unique control in that state among its role).
STATE = {
    ("checkbox", "checked"): T(["the checked one", "the box that's ticked", "the ticked checkbox", "the one with the tick"],
                               ["la que está marcada", "la casilla marcada", "la que tiene el tic", "la casilla con la marca"],
                               ["celle qui est cochée", "la case cochée", "la case avec la coche", "celle qui a la coche"],
                               ["das angehakte", "das Kästchen mit Haken", "das abgehakte Kästchen", "die Checkbox, die schon an ist"]),
    ("checkbox", "unchecked"): T(["the unchecked one", "the empty box", "the box that isn't ticked", "the unticked checkbox"],
                                 ["la que no está marcada", "la casilla vacía", "la que está sin marcar", "la casilla sin tic"],
                                 ["celle qui n'est pas cochée", "la case vide", "la case pas cochée", "la case décochée"],
                                 ["das leere Kästchen", "das, wo kein Haken drin ist", "das nicht angehakte", "die Checkbox ohne Haken"]),
    ("button", "disabled"): T(["the disabled button", "the greyed-out button", "the button I can't press", "the grey one that doesn't work"],
                              ["el botón desactivado", "el botón que está en gris", "el botón que no se puede pulsar", "el gris que no funciona"],
                              ["le bouton grisé", "le bouton désactivé", "le bouton qu'on ne peut pas cliquer", "celui qui est grisé"],
                              ["den ausgegrauten Button", "den deaktivierten Knopf", "den Knopf, den man nicht drücken kann", "den grauen, der nicht geht"]),
    ("tab", "selected"): T(["the selected tab", "the tab I'm on", "the current tab", "the open tab"],
                           ["la pestaña seleccionada", "la pestaña en la que estoy", "la pestaña actual", "la pestaña abierta"],
                           ["l'onglet sélectionné", "l'onglet où je suis", "l'onglet actuel", "l'onglet ouvert"],
                           ["den ausgewählten Reiter", "den Tab, auf dem ich bin", "den aktuellen Reiter", "den offenen Tab"]),
    ("switch", "checked"): T(["the toggle that's on", "the switch that's turned on"], ["el interruptor que está encendido", "el que está activado"],
                             ["l'interrupteur activé", "celui qui est allumé"], ["den Schalter, der an ist", "den eingeschalteten Schalter"]),
    ("switch", "unchecked"): T(["the toggle that's off", "the switch that's turned off"], ["el interruptor apagado", "el que está desactivado"],
                               ["l'interrupteur éteint", "celui qui est désactivé"], ["den Schalter, der aus ist", "den ausgeschalteten Schalter"]),
    ("radio", "checked"): T(["the selected option", "the chosen radio button"], ["la opción elegida", "el circulito marcado"],
                            ["l'option choisie", "le rond coché"], ["die gewählte Option", "den markierten Radiobutton"]),
    ("textbox", "filled"): T(["the field that already has something in it", "the box that's filled in"],
                             ["el campo que ya tiene algo escrito", "la casilla que está rellena"],
                             ["le champ déjà rempli", "la case où il y a déjà du texte"],
                             ["das Feld, wo schon was drinsteht", "das ausgefüllte Feld"]),
}

# Other-language phrase for "in the row of" etc. Row templates: {a} action name, {x} item phrase
# (article included, German accusative), {b} bare item name.
ROW_FRAME = T(["the {a} button for {x}", "{a} on {x}", "the {a} button next to {x}", "the {a} in the {b} row", "{a} for {b}", "{a}, the one for {b}"],
              ["el botón {a} de la fila de {b}", "{a} en la fila de {b}", "el botón de {a} que está junto a {b}", "el botón {a} para {x}", "{a} en {b}", "el botón {a} de la línea de {b}"],
              ["le bouton {a} pour {x}", "{a} sur la ligne {b}", "le bouton « {a} » à côté de {b}", "le bouton {a} de la ligne {b}", "{a} pour {b}", "le bouton {a} en face de « {b} »"],
              ["den {a}-Button bei {b}", "{a} in der Zeile von {b}", "den Knopf {a} bei {b}", "{a} beim Eintrag {b}", "{a} für {b}", "den Knopf „{a}“ in der Zeile {b}"])
ROW_ICON = T(["{i} next to {x}", "{i} on {b}'s row", "{i} for {b}", "{i} beside {x}"],
             ["{i} de la fila de {b}", "{i} al lado de {b}", "{i} en la línea de {b}", "{i} que hay junto a {b}"],
             ["{i} sur la ligne {b}", "{i} à côté de « {b} »", "{i} en face de {b}", "{i} pour {x}"],
             ["{i} bei {b}", "{i} in der Zeile von {b}", "{i} neben dem Eintrag {b}", "{i} für {x}"])
ORD_ACTION = T(["the {o} {a} button", "the {a} button on the {o} row", "{a} on the {o} one", "the {o} row's {a}"],
               ["el {o_m} botón de {a}", "{a} en la {o_f} fila", "el botón {a} de la {o_f} fila", "{a} del {o_m} elemento"],
               ["le {o_m} bouton {a}", "{a} sur la {o_f} ligne", "le bouton {a} de la {o_f} ligne", "{a} pour le {o_m} élément"],
               ["den {o_m} {a}-Button", "{a} in der {o_f} Zeile", "den Knopf {a} in der {o_f} Zeile", "{a} beim {o_n} Eintrag"])
