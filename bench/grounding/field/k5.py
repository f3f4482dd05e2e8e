"""Kinds: music (player), video, crm (admin), health (booking), realestate, chat, issues (tracker)."""

from vocab import T, MONTHS, WEEKDAYS, CITIES, FIRST, LAST
from kbase import KINDS, B, LNK, TAB, F, people, price, from_list
from k2 import DELETE, EDIT, MORE, SHARE, DOWNLOAD

# =============================================================================================
SONGS = T(["Midnight Drive", "Paper Boats", "Golden Hour", "Northern Lights", "Slow Dancing", "City of Glass", "Wildfire", "Blue Monday Morning", "Summer Rain", "Echoes", "Run Away", "Lighthouse"],
          ["Carretera de noche", "Barcos de papel", "La hora dorada", "Luces del norte", "Bailar despacio", "Ciudad de cristal", "Fuego", "Lunes azul", "Lluvia de verano", "Ecos", "Huir", "El faro"],
          ["Route de nuit", "Bateaux en papier", "L'heure dorée", "Aurores boréales", "Danser lentement", "Ville de verre", "Feu de forêt", "Lundi bleu", "Pluie d'été", "Échos", "Partir", "Le phare"],
          ["Nachtfahrt", "Papierboote", "Goldene Stunde", "Nordlichter", "Langsam tanzen", "Stadt aus Glas", "Flächenbrand", "Blauer Montag", "Sommerregen", "Echos", "Weglaufen", "Leuchtturm"])
ARTISTS = ["The Paper Kites", "Luna Vega", "Nordklang", "Les Étoiles", "Marco Ruiz", "Hanna Berg", "Orquesta Sol", "Émile Blanc", "Zwei Herzen", "Nova"]


def song_items(lang, rng, n):
    ts = rng.sample(SONGS[lang], min(n, 12))
    out = []
    for t in ts:
        x = {"en": f"“{t}”", "es": f"la canción {t}", "fr": f"la chanson {t}", "de": f"das Lied {t}"}[lang]
        if lang == "en":
            x = f"the song {t}"
        out.append(dict(title=t, x=x, b=t, sub=[rng.choice(ARTISTS), f"{rng.randrange(2, 5)}:{rng.randrange(10, 59)}"]))
    return out


KINDS["music"] = dict(
    noun=T(("song", "f"), ("canción", "f"), ("chanson", "f"), ("Lied", "n")),
    pages=["playlist-1", "playlist-2"],
    h1=T(["Road trip mix", "Chill evening"], ["Mezcla para el viaje", "Tarde tranquila"], ["Mix road trip", "Soirée chill"], ["Roadtrip-Mix", "Entspannter Abend"]),
    nav=[LNK(T(["Home"], ["Inicio"], ["Accueil"], ["Start"])), LNK(T(["Browse"], ["Explorar"], ["Parcourir"], ["Entdecken"]), T(["find new music"], ["descubrir música nueva"], ["découvrir de la musique"], ["neue Musik finden"])),
         LNK(T(["Radio"], ["Radio"], ["Radio"], ["Radio"])), LNK(T(["Your library"], ["Tu biblioteca"], ["Bibliothèque"], ["Deine Bibliothek"]), T(["my saved music"], ["mi música guardada"], ["ma musique enregistrée"], ["meine gespeicherte Musik"])),
         LNK(T(["Podcasts"], ["Pódcasts"], ["Podcasts"], ["Podcasts"]))],
    tabs=[TAB(T(["Songs"], ["Canciones"], ["Titres"], ["Titel"])), TAB(T(["Albums"], ["Álbumes"], ["Albums"], ["Alben"])), TAB(T(["Artists"], ["Artistas"], ["Artistes"], ["Künstler"]))],
    cols=T(["Title", "Artist", "Length"], ["Título", "Artista", "Duración"], ["Titre", "Artiste", "Durée"], ["Titel", "Künstler", "Länge"]),
    items=song_items,
    actions=dict(
        play=B(T(["Play"], ["Reproducir"], ["Lire"], ["Abspielen"]), icon="play",
               verb=T(["play {x}", "put on {x}", "I want to hear {x}", "start {x}"], ["pon {x}", "reproduce {x}", "quiero oír {x}", "dale a {x}"],
                      ["mets {x}", "joue {x}", "je veux écouter {x}", "lance {x}"], ["spiel {x}", "mach {x} an", "ich will {x} hören", "leg {x} auf"])),
        like=B(T(["Like", "Save to library"], ["Me gusta", "Guardar en biblioteca"], ["J'aime", "Ajouter à la bibliothèque"], ["Gefällt mir", "In Bibliothek speichern"]), icon="heart",
               verb=T(["like {x}", "save {x} to my library"], ["dale me gusta a {x}", "guarda {x}"], ["like {x}", "ajoute {x} à ma bibliothèque"], ["like {x}", "speicher {x}"])),
        queue=B(T(["Add to queue", "Play next"], ["Añadir a la cola", "Reproducir después"], ["Ajouter à la file", "Lire ensuite"], ["Zur Warteschlange", "Als Nächstes"]),
                verb=T(["queue up {x}", "play {x} after this"], ["pon {x} en la cola", "pon {x} después de esta"], ["mets {x} dans la file", "mets {x} après celle-ci"], ["setz {x} in die Warteschlange", "spiel {x} danach"])),
    ),
    extras=dict(
        playpause=B(T(["Pause"], ["Pausa"], ["Pause"], ["Pause"]), icon="pause",
                    para=T(["stop the music for a sec", "hold it"], ["para la música un momento", "espera, para"], ["arrête la musique deux secondes", "stop une seconde"], ["die Musik kurz anhalten", "mal stoppen"])),
        next=B(T(["Next track", "Skip"], ["Siguiente canción", "Saltar"], ["Titre suivant", "Passer"], ["Nächster Titel", "Überspringen"]), icon="skip",
               para=T(["I don't like this one", "the one after"], ["esta no me gusta", "la siguiente"], ["j'aime pas celle-là", "la suivante"], ["das mag ich nicht", "das nächste Lied"])),
        shuffle=B(T(["Shuffle"], ["Aleatorio"], ["Lecture aléatoire"], ["Zufallswiedergabe"]), icon="refresh",
                  para=T(["mix up the order", "random order"], ["mezcla el orden", "en orden aleatorio"], ["mélange l'ordre", "dans le désordre"], ["die Reihenfolge mischen", "durcheinander abspielen"])),
        volume=B(T(["Mute", "Volume"], ["Silenciar", "Volumen"], ["Couper le son", "Volume"], ["Stumm", "Lautstärke"]), icon="volume",
                 para=T(["turn the sound off", "quiet"], ["quita el sonido", "silencio"], ["coupe le son", "chut"], ["Ton aus", "Ruhe"])),
    ),
    form=dict(),
    form_title=T([""], [""], [""], [""]),
    submit=B(T(["Done"], ["Listo"], ["OK"], ["Fertig"])),
    absent=T(["the lyrics", "the equaliser", "play the Beatles", "the sleep timer", "the crossfade setting", "the karaoke mode"],
             ["la letra", "el ecualizador", "pon a los Beatles", "el temporizador", "el fundido entre canciones", "el modo karaoke"],
             ["les paroles", "l'égaliseur", "mets les Beatles", "le minuteur de veille", "le fondu enchaîné", "le mode karaoké"],
             ["den Songtext", "den Equalizer", "spiel die Beatles", "den Sleep-Timer", "die Überblendung", "den Karaoke-Modus"]),
    sites=[
        dict(brand="Tunely", layout="table", actions=["play", "like"], icon_actions=True, label_item=True, header=["search", "account"], top=["shuffle", "playpause", "next", "volume"], top_icons=True,
             n_items=[10, 9], form=[], pager=False),
        dict(brand="Sonar", layout="list", actions=["play", "queue"], icon_actions=False, header=["menu", "search", "notif", "account"], top=["playpause", "next"], top_icons=True,
             n_items=[9, 11], form=[], pager=False, tabs=True),
    ],
)

# =============================================================================================
VIDEOS = T(["10-minute morning yoga", "How to fix a leaky tap", "Easy sourdough for beginners", "Top 10 hidden beaches", "Learn guitar chords in a day",
            "Budget travel tips", "Cat tries cucumber", "Home workout without equipment", "Making pasta from scratch", "Why the sky is blue"],
           ["Yoga de 10 minutos por la mañana", "Cómo arreglar un grifo que gotea", "Pan de masa madre fácil", "Las 10 calas escondidas", "Acordes de guitarra en un día",
            "Viajar barato: trucos", "Gato contra pepino", "Entrenamiento en casa sin material", "Pasta fresca casera", "Por qué el cielo es azul"],
           ["Yoga du matin en 10 minutes", "Réparer un robinet qui fuit", "Pain au levain facile", "10 plages secrètes", "Apprendre les accords de guitare en un jour",
            "Voyager pas cher", "Un chat face à un concombre", "Sport à la maison sans matériel", "Pâtes fraîches maison", "Pourquoi le ciel est bleu"],
           ["10 Minuten Morgenyoga", "Tropfenden Wasserhahn reparieren", "Sauerteigbrot für Anfänger", "Die 10 versteckten Strände", "Gitarrengriffe an einem Tag",
            "Günstig reisen: Tipps", "Katze gegen Gurke", "Workout zu Hause ohne Geräte", "Nudeln selber machen", "Warum der Himmel blau ist"])
VIDX = T(["the yoga video", "the tap repair one", "the bread video", "the beaches one", "the guitar video", "the travel tips one", "the cat video", "the workout video", "the pasta one", "the sky one"],
         ["el vídeo de yoga", "el del grifo", "el del pan", "el de las calas", "el de guitarra", "el de viajar barato", "el del gato", "el de entrenar en casa", "el de la pasta", "el del cielo"],
         ["la vidéo de yoga", "celle du robinet", "la vidéo sur le pain", "celle des plages", "la vidéo de guitare", "celle sur les voyages", "la vidéo du chat", "celle du sport", "la vidéo des pâtes", "celle sur le ciel"],
         ["das Yoga-Video", "das mit dem Wasserhahn", "das Brot-Video", "das mit den Stränden", "das Gitarren-Video", "das mit den Reisetipps", "das Katzenvideo", "das Workout-Video", "das mit den Nudeln", "das mit dem Himmel"])


def video_items(lang, rng, n):
    idx = rng.sample(range(10), min(n, 10))
    chans = ["Daily Calm", "FixIt", "BakeLab", "Wanderlust", "StrumSchool", "Nomad", "Pawsome", "FitHome", "Nonna's", "Curious"]
    return [dict(title=VIDEOS[lang][i], x=VIDX[lang][i], b=VIDEOS[lang][i], sub=[chans[i], f"{rng.randrange(3, 25)}:{rng.randrange(10, 59)}"]) for i in idx]


KINDS["video"] = dict(
    noun=T(("video", "m"), ("vídeo", "m"), ("vidéo", "f"), ("Video", "n")),
    pages=["watch-1", "watch-2"],
    h1=T(["Recommended", "Up next"], ["Recomendados", "A continuación"], ["Recommandées", "À suivre"], ["Empfohlen", "Als Nächstes"]),
    nav=[LNK(T(["Home"], ["Inicio"], ["Accueil"], ["Start"])), LNK(T(["Subscriptions"], ["Suscripciones"], ["Abonnements"], ["Abos"]), T(["the channels I follow"], ["los canales que sigo"], ["les chaînes que je suis"], ["die Kanäle, denen ich folge"])),
         LNK(T(["Library"], ["Biblioteca"], ["Bibliothèque"], ["Mediathek"])), LNK(T(["History"], ["Historial"], ["Historique"], ["Verlauf"]), T(["what I watched before"], ["lo que vi antes"], ["ce que j'ai regardé"], ["was ich schon angeschaut hab"])),
         LNK(T(["Watch later"], ["Ver más tarde"], ["À regarder plus tard"], ["Später ansehen"]))],
    tabs=[TAB(T(["All"], ["Todos"], ["Tout"], ["Alle"])), TAB(T(["Related"], ["Relacionados"], ["Similaires"], ["Ähnlich"])), TAB(T(["From this channel"], ["De este canal"], ["De cette chaîne"], ["Von diesem Kanal"]))],
    cols=T(["Video", "Channel", "Length"], ["Vídeo", "Canal", "Duración"], ["Vidéo", "Chaîne", "Durée"], ["Video", "Kanal", "Länge"]),
    items=video_items,
    actions=dict(
        later=B(T(["Watch later", "Save"], ["Ver más tarde", "Guardar"], ["À regarder plus tard", "Enregistrer"], ["Später ansehen", "Speichern"]), icon="bookmark",
                verb=T(["save {x} for later", "I'll watch {x} later"], ["guarda {x} para luego", "{x}, para verlo luego"], ["garde {x} pour plus tard", "je regarderai {x} plus tard"], ["speicher {x} für später", "{x} schau ich später"])),
        more=MORE),
    extras=dict(
        play=B(T(["Play", "Pause"], ["Reproducir", "Pausa"], ["Lecture", "Pause"], ["Abspielen", "Pause"]), icon="play",
               para=T(["start the video", "go"], ["empieza el vídeo", "dale"], ["lance la vidéo", "vas-y"], ["das Video starten", "los"])),
        fullscreen=B(T(["Full screen"], ["Pantalla completa"], ["Plein écran"], ["Vollbild"]), icon="expand",
                     para=T(["make it fill the screen", "bigger"], ["que ocupe toda la pantalla", "más grande"], ["en grand sur tout l'écran", "plus grand"], ["über den ganzen Bildschirm", "größer"])),
        captions=B(T(["Subtitles", "Captions"], ["Subtítulos"], ["Sous-titres"], ["Untertitel"]),
                   para=T(["show the words at the bottom", "turn on the text"], ["pon las letras abajo", "activa el texto"], ["affiche le texte en bas", "active le texte"], ["den Text unten einblenden", "Text an"])),
        subscribe=B(T(["Subscribe"], ["Suscribirse"], ["S'abonner"], ["Abonnieren"]),
                    para=T(["follow this channel", "get their new videos"], ["seguir este canal", "recibir sus vídeos nuevos"], ["suivre cette chaîne", "avoir leurs nouvelles vidéos"], ["dem Kanal folgen", "deren neue Videos kriegen"])),
        likevid=B(T(["Like"], ["Me gusta"], ["J'aime"], ["Mag ich"]), icon="heart", para=T(["thumbs up for this one"], ["pulgar arriba a este"], ["pouce levé pour celle-ci"], ["Daumen hoch dafür"])),
    ),
    form=dict(
        comment=F("textbox", T(["Add a comment"], ["Añade un comentario"], ["Ajouter un commentaire"], ["Kommentar hinzufügen"]), T(["say what I think about the video"], ["decir lo que pienso del vídeo"], ["dire ce que je pense de la vidéo"], ["sagen, was ich vom Video halte"])),
        autoplay=F("switch", T(["Autoplay"], ["Reproducción automática"], ["Lecture automatique"], ["Autoplay"]), T(["keep playing the next one by itself"], ["que siga con el siguiente solo"], ["enchaîner tout seul"], ["automatisch weiterspielen"])),
        quality=F("combobox", T(["Quality"], ["Calidad"], ["Qualité"], ["Qualität"]), T(["make it sharper", "HD"], ["que se vea más nítido", "en HD"], ["plus net", "en HD"], ["schärfer machen", "in HD"]),
                  options=T(["Auto", "1080p", "720p", "480p"], ["Automática", "1080p", "720p", "480p"], ["Auto", "1080p", "720p", "480p"], ["Automatisch", "1080p", "720p", "480p"])),
    ),
    form_title=T(["Comments"], ["Comentarios"], ["Commentaires"], ["Kommentare"]),
    submit=B(T(["Comment"], ["Comentar"], ["Commenter"], ["Kommentieren"]), T(["post my comment"], ["publica mi comentario"], ["publie mon commentaire"], ["meinen Kommentar posten"])),
    absent=T(["the dislike button", "the playback speed", "save the cooking show", "the picture in picture button", "the clip button", "the live chat"],
             ["el botón de no me gusta", "la velocidad de reproducción", "guarda el programa de cocina", "el botón de pantalla flotante", "el botón de recortar", "el chat en directo"],
             ["le bouton je n'aime pas", "la vitesse de lecture", "garde l'émission de cuisine", "le bouton image dans l'image", "le bouton extrait", "le chat en direct"],
             ["den Daumen-runter-Knopf", "die Wiedergabegeschwindigkeit", "speicher die Kochsendung", "den Bild-im-Bild-Knopf", "den Clip-Knopf", "den Livechat"]),
    sites=[
        dict(brand="Vidora", layout="list", actions=["later", "more"], icon_actions=True, label_item=True, header=["menu", "search", "notif", "account"],
             top=["play", "fullscreen", "captions", "subscribe"], top_icons=True, n_items=[8, 9], form=["comment"], pager=False),
        dict(brand="Mirador TV", layout="cards", actions=["later"], icon_actions=False, header=["search", "account"], top=["play", "likevid", "subscribe"], top_icons=True,
             n_items=[9, 10], form=["autoplay", "quality"], pager=False),
    ],
)

# =============================================================================================
COMPANIES = ["Acme Logistics", "Bluebird Studio", "Cerro Verde", "Delta Foods", "Evergreen Labs", "Falcon Media", "Granja Sol", "Harbor & Sons", "Iris Health", "Jade Textiles", "Kestrel Energy", "Lumen Bank"]


def crm_items(lang, rng, n):
    ps = people(lang, rng, n)
    cs = rng.sample(COMPANIES, min(n, len(COMPANIES)))
    stages = {"en": ["Lead", "Qualified", "Proposal", "Won"], "es": ["Contacto", "Cualificado", "Propuesta", "Ganado"], "fr": ["Prospect", "Qualifié", "Proposition", "Gagné"], "de": ["Lead", "Qualifiziert", "Angebot", "Gewonnen"]}[lang]
    out = []
    for (f, l), c in zip(ps, cs):
        x = {"en": f"{f} from {c}", "es": f"{f}, de {c}", "fr": f"{f} de chez {c}", "de": f"{f} von {c}"}[lang]
        out.append(dict(title=f"{f} {l}", x=x, b=f"{f} {l}", sub=[c, rng.choice(stages), f"{f.lower()}@{c.split()[0].lower()}.com"]))
    return out


KINDS["crm"] = dict(
    noun=T(("contact", "m"), ("contacto", "m"), ("contact", "m"), ("Kontakt", "m")),
    pages=["contacts-1", "contacts-2"],
    h1=T(["Contacts", "Leads"], ["Contactos", "Oportunidades"], ["Contacts", "Prospects"], ["Kontakte", "Leads"]),
    nav=[LNK(T(["Contacts"], ["Contactos"], ["Contacts"], ["Kontakte"])), LNK(T(["Companies"], ["Empresas"], ["Sociétés"], ["Firmen"])), LNK(T(["Deals"], ["Negocios"], ["Affaires"], ["Deals"]), T(["the sales pipeline"], ["el embudo de ventas"], ["le pipeline commercial"], ["die Vertriebspipeline"])),
         LNK(T(["Tasks"], ["Tareas"], ["Tâches"], ["Aufgaben"])), LNK(T(["Reports"], ["Informes"], ["Rapports"], ["Berichte"])), LNK(T(["Users & roles"], ["Usuarios y roles"], ["Utilisateurs et rôles"], ["Benutzer & Rollen"]), T(["who has access"], ["quién tiene acceso"], ["qui a accès"], ["wer Zugriff hat"]))],
    tabs=[TAB(T(["All contacts"], ["Todos"], ["Tous les contacts"], ["Alle Kontakte"])), TAB(T(["My contacts"], ["Mis contactos"], ["Mes contacts"], ["Meine Kontakte"]), T(["just the ones assigned to me"], ["solo los míos"], ["seulement ceux qui m'sont attribués"], ["nur die, die mir zugeordnet sind"])),
          TAB(T(["Unassigned"], ["Sin asignar"], ["Non attribués"], ["Nicht zugewiesen"]))],
    cols=T(["Name", "Company", "Stage", "Email"], ["Nombre", "Empresa", "Fase", "Correo"], ["Nom", "Société", "Étape", "E-mail"], ["Name", "Firma", "Phase", "E-Mail"]),
    items=crm_items,
    actions=dict(
        call=B(T(["Call"], ["Llamar"], ["Appeler"], ["Anrufen"]), icon="phone",
               verb=T(["call {x}", "ring {x}", "phone {b}"], ["llama a {x}", "telefonea a {b}", "dale un toque a {b}"], ["appelle {x}", "téléphone à {b}", "passe un coup de fil à {b}"], ["ruf {x} an", "telefonier mit {b}", "klingel bei {b} durch"])),
        email=B(T(["Email"], ["Enviar correo"], ["Envoyer un e-mail"], ["E-Mail senden"]), icon="plane",
                verb=T(["email {x}", "write to {b}", "drop {b} a line"], ["escríbele a {b}", "mándale un correo a {b}", "manda un email a {x}"], ["écris à {b}", "envoie un mail à {x}", "un petit mail à {b}"], ["schreib {b} eine Mail", "mail an {x}", "schick {b} eine Nachricht"])),
        edit=EDIT, delete=DELETE),
    extras=dict(
        addcontact=B(T(["Add contact", "New contact"], ["Añadir contacto", "Nuevo contacto"], ["Ajouter un contact", "Nouveau contact"], ["Kontakt hinzufügen", "Neuer Kontakt"]), icon="plus",
                     para=T(["put a new person in", "create someone"], ["meter a una persona nueva", "dar de alta a alguien"], ["ajouter une nouvelle personne", "créer une fiche"], ["eine neue Person anlegen", "jemanden neu eintragen"])),
        importc=B(T(["Import"], ["Importar"], ["Importer"], ["Importieren"]), icon="download",
                  para=T(["bring in my spreadsheet of people", "load contacts from a file"], ["cargar mi Excel de contactos", "meter contactos desde un archivo"], ["charger mon tableur de contacts", "importer depuis un fichier"], ["meine Kontaktliste reinladen", "Kontakte aus einer Datei holen"])),
        filter=B(T(["Filter"], ["Filtrar"], ["Filtrer"], ["Filtern"]), icon="filter",
                 para=T(["narrow down the list", "show only some people"], ["acotar la lista", "mostrar solo algunos"], ["réduire la liste", "n'afficher que certains"], ["die Liste eingrenzen", "nur ein paar anzeigen"])),
    ),
    form=dict(
        owner=F("combobox", T(["Owner", "Assigned to"], ["Responsable", "Asignado a"], ["Responsable", "Attribué à"], ["Verantwortlich", "Zugewiesen an"]), T(["whose customer it is"], ["de quién es el cliente"], ["à qui appartient le client"], ["wem der Kunde gehört"]),
                  options=T(["Anyone", "Me", "Sales team"], ["Cualquiera", "Yo", "Equipo comercial"], ["Tout le monde", "Moi", "Équipe commerciale"], ["Alle", "Ich", "Vertriebsteam"])),
        stage=F("combobox", T(["Stage"], ["Fase"], ["Étape"], ["Phase"]), T(["how far along the deal is"], ["en qué punto está el trato"], ["où en est l'affaire"], ["wie weit der Deal ist"]),
                options=T(["Any", "Lead", "Qualified", "Won"], ["Cualquiera", "Contacto", "Cualificado", "Ganado"], ["Toutes", "Prospect", "Qualifié", "Gagné"], ["Alle", "Lead", "Qualifiziert", "Gewonnen"])),
        vip=F("checkbox", T(["Key accounts only"], ["Solo cuentas clave"], ["Comptes clés uniquement"], ["Nur Schlüsselkunden"]), T(["just the important customers"], ["solo los clientes importantes"], ["juste les gros clients"], ["nur die wichtigen Kunden"])),
    ),
    form_title=T(["Filters"], ["Filtros"], ["Filtres"], ["Filter"]),
    submit=B(T(["Apply filters"], ["Aplicar filtros"], ["Appliquer les filtres"], ["Filter anwenden"]), T(["use those filters"], ["usa esos filtros"], ["prends ces filtres"], ["nimm diese Filter"])),
    absent=T(["call Oliver from Acme", "the merge duplicates button", "the LinkedIn profile", "the pipeline chart", "the bulk email button", "the notes field"],
             ["llama a Óscar de Acme", "el botón de fusionar duplicados", "el perfil de LinkedIn", "el gráfico del embudo", "el botón de correo masivo", "el campo de notas"],
             ["appelle Olivier de chez Acme", "le bouton fusionner les doublons", "le profil LinkedIn", "le graphique du pipeline", "le bouton d'e-mail groupé", "le champ notes"],
             ["ruf Oliver von Acme an", "den Duplikate-zusammenführen-Knopf", "das LinkedIn-Profil", "das Pipeline-Diagramm", "den Massenmail-Knopf", "das Notizfeld"]),
    sites=[
        dict(brand="Relata CRM", layout="table", actions=["call", "email"], icon_actions=True, label_item=True, header=["search", "notif", "settings", "account"],
             top=["addcontact", "importc"], n_items=[7, 8], form=["owner", "vip"], select_rows=True),
        dict(brand="Clientela", layout="list", actions=["edit", "delete"], icon_actions=False, header=["menu", "search", "help", "account"], top=["addcontact", "filter"], top_icons=True,
             n_items=[9, 8], form=["stage", "owner", "vip"]),
    ],
)

# =============================================================================================
SPECIALTY = T(["GP", "Dentist", "Dermatologist", "Physiotherapist", "Paediatrician", "Optician", "Cardiologist", "Gynaecologist"],
              ["Medicina general", "Dentista", "Dermatología", "Fisioterapia", "Pediatría", "Óptica", "Cardiología", "Ginecología"],
              ["Généraliste", "Dentiste", "Dermatologue", "Kinésithérapeute", "Pédiatre", "Opticien", "Cardiologue", "Gynécologue"],
              ["Allgemeinmedizin", "Zahnarzt", "Hautarzt", "Physiotherapie", "Kinderarzt", "Optiker", "Kardiologie", "Gynäkologie"])
DR = {"en": "Dr", "es": "Dra.", "fr": "Dr", "de": "Dr."}


def doc_items(lang, rng, n):
    ps = people(lang, rng, n)
    out = []
    for (f, l) in ps:
        i = rng.randrange(len(SPECIALTY[lang]))
        name = f"{DR[lang]} {f} {l}"
        x = {"en": f"Dr {l}", "es": f"la doctora {l}", "fr": f"le docteur {l}", "de": f"Dr. {l}"}[lang]
        slot = f"{rng.choice(WEEKDAYS[lang][:5])} {rng.randrange(8, 18)}:{rng.choice(['00', '30'])}"
        out.append(dict(title=name, x=x, b=l, sub=[SPECIALTY[lang][i], slot]))
    # surnames must be unique for the row-relative phrases
    seen, uniq = set(), []
    for it in out:
        if it["b"] not in seen:
            seen.add(it["b"])
            uniq.append(it)
    return uniq


KINDS["health"] = dict(
    noun=T(("doctor", "m"), ("médico", "m"), ("médecin", "m"), ("Arzt", "m")),
    pages=["book-1", "book-2"],
    h1=T(["Book an appointment", "Available doctors"], ["Pide cita", "Médicos disponibles"], ["Prendre rendez-vous", "Praticiens disponibles"], ["Termin buchen", "Verfügbare Ärzte"]),
    nav=[LNK(T(["Find a doctor"], ["Buscar médico"], ["Trouver un praticien"], ["Arzt finden"])), LNK(T(["My appointments"], ["Mis citas"], ["Mes rendez-vous"], ["Meine Termine"]), T(["the visits I already booked"], ["las citas que ya tengo"], ["mes rendez-vous déjà pris"], ["die Termine, die ich schon hab"])),
         LNK(T(["Prescriptions"], ["Recetas"], ["Ordonnances"], ["Rezepte"]), T(["my medicine"], ["mis medicamentos"], ["mes médicaments"], ["meine Medikamente"])), LNK(T(["Test results"], ["Resultados"], ["Résultats d'analyses"], ["Befunde"]), T(["my blood test"], ["los análisis"], ["ma prise de sang"], ["meine Blutwerte"])),
         LNK(T(["Messages"], ["Mensajes"], ["Messagerie"], ["Nachrichten"]))],
    tabs=[TAB(T(["In person"], ["Presencial"], ["Au cabinet"], ["Vor Ort"])), TAB(T(["Video call"], ["Videoconsulta"], ["Téléconsultation"], ["Videosprechstunde"]), T(["see the doctor online"], ["consulta por vídeo"], ["voir le médecin en visio"], ["online zum Arzt"]))],
    cols=T(["Doctor", "Specialty", "Next available"], ["Profesional", "Especialidad", "Primera cita"], ["Praticien", "Spécialité", "Prochaine dispo"], ["Arzt", "Fachrichtung", "Nächster Termin"]),
    items=doc_items,
    actions=dict(
        book=B(T(["Book", "Book appointment"], ["Reservar", "Pedir cita"], ["Réserver", "Prendre RDV"], ["Buchen", "Termin buchen"]),
               verb=T(["book with {x}", "get me in with {x}", "an appointment with {x}"], ["pide cita con {x}", "resérvame con {x}", "una cita con {x}"],
                      ["prends rendez-vous avec {x}", "réserve chez {x}", "un rendez-vous avec {x}"], ["buch einen Termin bei {x}", "mach mir einen Termin bei {x}", "einen Termin bei {x}"])),
        profile=B(T(["View profile"], ["Ver perfil"], ["Voir le profil"], ["Profil ansehen"]),
                  verb=T(["more about {x}", "who is {x}"], ["más sobre {x}", "quién es {x}"], ["en savoir plus sur {x}", "c'est qui {x}"], ["mehr über {x}", "wer ist {x}"])),
        fav=B(T(["Save doctor"], ["Guardar profesional"], ["Enregistrer le praticien"], ["Arzt merken"]), icon="heart",
              verb=T(["remember {x}", "save {x}"], ["guarda a {x}", "guarda el contacto de {x}"], ["garde {x}", "mets {x} en favori"], ["merk dir {x}", "speicher {x}"])),
    ),
    extras=dict(
        emergency=B(T(["Urgent care", "Emergency"], ["Urgencias"], ["Urgences"], ["Notfall"]), icon="phone",
                    para=T(["I need help right now", "it can't wait"], ["necesito ayuda ya", "no puede esperar"], ["j'ai besoin d'aide tout de suite", "ça ne peut pas attendre"], ["ich brauch sofort Hilfe", "das kann nicht warten"])),
    ),
    form=dict(
        reason=F("combobox", T(["Reason for visit"], ["Motivo de la consulta"], ["Motif de consultation"], ["Grund des Besuchs"]), T(["why I'm going"], ["por qué voy"], ["pourquoi je viens"], ["warum ich komme"]),
                 T(["the reason dropdown"], ["el desplegable del motivo"], ["la liste des motifs"], ["das Dropdown für den Grund"]),
                 options=T(["Check-up", "New symptoms", "Follow-up", "Vaccination"], ["Revisión", "Síntomas nuevos", "Seguimiento", "Vacunación"], ["Bilan", "Nouveaux symptômes", "Suivi", "Vaccination"], ["Vorsorge", "Neue Beschwerden", "Kontrolle", "Impfung"])),
        insurance=F("textbox", T(["Insurance number"], ["Número de tarjeta sanitaria"], ["Numéro de sécurité sociale"], ["Versichertennummer"]), T(["my health card number"], ["el número de la tarjeta"], ["le numéro de ma carte Vitale"], ["die Nummer von meiner Karte"])),
        firstvisit=F("checkbox", T(["First visit"], ["Primera visita"], ["Première consultation"], ["Erstbesuch"]), T(["I've never been there"], ["nunca he ido"], ["je ne suis jamais venu"], ["ich war da noch nie"])),
        sms=F("checkbox", T(["Text me a reminder"], ["Recordatorio por SMS"], ["Rappel par SMS"], ["Erinnerung per SMS"]), T(["remind me by phone the day before"], ["que me avisen al móvil el día antes"], ["un texto la veille"], ["am Tag vorher aufs Handy erinnern"])),
    ),
    form_title=T(["Appointment details"], ["Datos de la cita"], ["Détails du rendez-vous"], ["Termindetails"]),
    submit=B(T(["Confirm booking"], ["Confirmar cita"], ["Confirmer le rendez-vous"], ["Termin bestätigen"]), T(["lock in the appointment"], ["cierra la cita"], ["valide le rendez-vous"], ["den Termin festmachen"])),
    absent=T(["book with Dr Who", "the hospital map", "the symptom checker", "the pharmacy finder", "the home visit option", "cancel my appointment"],
             ["pide cita con el doctor House", "el mapa del hospital", "el comprobador de síntomas", "el buscador de farmacias", "la opción de visita a domicilio", "cancela mi cita"],
             ["prends rendez-vous avec le docteur Knock", "le plan de l'hôpital", "le test de symptômes", "la recherche de pharmacie", "l'option visite à domicile", "annule mon rendez-vous"],
             ["buch einen Termin bei Dr. Frankenstein", "den Lageplan vom Krankenhaus", "den Symptom-Check", "die Apothekensuche", "die Hausbesuch-Option", "sag meinen Termin ab"]),
    sites=[
        dict(brand="Salud Ya", layout="cards", actions=["book", "profile"], header=["search", "account"], top=["emergency"], n_items=[6, 8],
             form=["reason", "firstvisit", "sms"], primary_action="book"),
        dict(brand="PraxisPlan", layout="table", actions=["fav", "book"], icon_actions=True, label_item=True, header=["menu", "notif", "help", "account"], top=["emergency"],
             top_icons=True, n_items=[7, 6], form=["reason", "insurance", "sms"], primary_action="book"),
    ],
)

# =============================================================================================
STREETS = T(["Oak Street", "Mill Lane", "Park Road", "Station Road", "Church Street", "King's Avenue", "Victoria Road", "High Street", "Riverside Walk", "Elm Grove"],
            ["calle Mayor", "calle del Olmo", "avenida del Parque", "calle de la Estación", "plaza de la Iglesia", "paseo del Río", "calle Sol", "calle Luna", "avenida de América", "calle Real"],
            ["rue des Lilas", "rue du Moulin", "avenue du Parc", "rue de la Gare", "place de l'Église", "quai de la Loire", "rue Victor-Hugo", "boulevard Voltaire", "rue Pasteur", "allée des Tilleuls"],
            ["Eichenweg", "Mühlenstraße", "Parkallee", "Bahnhofstraße", "Kirchplatz", "Königsallee", "Uferweg", "Hauptstraße", "Lindenstraße", "Gartenweg"])
HOMETYPE = T(["flat", "house", "studio", "loft"], ["piso", "casa", "estudio", "ático"], ["appartement", "maison", "studio", "loft"], ["Wohnung", "Haus", "Apartment", "Loft"])


def home_items(lang, rng, n):
    sts = rng.sample(STREETS[lang], min(n, 10))
    out = []
    for s in sts:
        t = rng.randrange(4)
        rooms = rng.randrange(1, 5)
        ht = HOMETYPE[lang][t]
        title = {"en": f"{rooms}-bed {ht}, {s}", "es": f"{ht.capitalize()} de {rooms} hab., {s}", "fr": f"{ht.capitalize()} {rooms + 1} pièces, {s}", "de": f"{rooms + 1}-Zimmer-{ht}, {s}"}[lang]
        x = {"en": f"the one on {s}", "es": f"el de la {s}" if s.startswith(("calle", "avenida", "plaza")) else f"el del {s}",
             "fr": f"celui de la {s}" if s.startswith(("rue", "place", "avenue", "allée")) else f"celui du {s}", "de": f"die am {s}" if s.endswith(("weg", "platz")) else f"die in der {s}"}[lang]
        out.append(dict(title=title, x=x, b=s, sub=[price(lang, rng, 600, 2500) + {"en": "/month", "es": "/mes", "fr": "/mois", "de": "/Monat"}[lang], rng.choice(CITIES[lang])]))
    return out


KINDS["realestate"] = dict(
    noun=T(("listing", "m"), ("anuncio", "m"), ("annonce", "f"), ("Anzeige", "f")),
    pages=["rent-1", "rent-2"],
    h1=T(["Homes to rent", "New listings"], ["Pisos en alquiler", "Anuncios nuevos"], ["Locations", "Nouvelles annonces"], ["Mietwohnungen", "Neue Anzeigen"]),
    nav=[LNK(T(["Buy"], ["Comprar"], ["Acheter"], ["Kaufen"])), LNK(T(["Rent"], ["Alquilar"], ["Louer"], ["Mieten"])), LNK(T(["Sell"], ["Vender"], ["Vendre"], ["Verkaufen"]), T(["put my place on the market"], ["poner mi piso a la venta"], ["mettre mon logement en vente"], ["meine Wohnung verkaufen"])),
         LNK(T(["Mortgages"], ["Hipotecas"], ["Prêts immobiliers"], ["Baufinanzierung"]), T(["borrowing money for a house"], ["pedir dinero para la casa"], ["emprunter pour la maison"], ["Geld fürs Haus leihen"])), LNK(T(["Agents"], ["Agencias"], ["Agences"], ["Makler"]))],
    tabs=[TAB(T(["List"], ["Lista"], ["Liste"], ["Liste"])), TAB(T(["Map"], ["Mapa"], ["Carte"], ["Karte"]), T(["see them on the map"], ["verlos en el mapa"], ["les voir sur la carte"], ["auf der Karte anzeigen"]))],
    cols=T(["Property", "Rent", "City"], ["Inmueble", "Alquiler", "Ciudad"], ["Bien", "Loyer", "Ville"], ["Objekt", "Miete", "Stadt"]),
    items=home_items,
    actions=dict(
        save=B(T(["Save", "Save home"], ["Guardar", "Guardar anuncio"], ["Sauvegarder", "Enregistrer l'annonce"], ["Merken", "Anzeige merken"]), icon="heart",
               verb=T(["save {x}", "keep {x} for later", "heart {x}"], ["guarda {x}", "no pierdas de vista {x}", "marca {x}"], ["garde {x}", "mets {x} de côté", "un cœur sur {x}"], ["merk dir {x}", "speicher {x}", "{x} merken"])),
        contact=B(T(["Contact agent", "Request viewing"], ["Contactar", "Pedir visita"], ["Contacter l'agence", "Demander une visite"], ["Makler kontaktieren", "Besichtigung anfragen"]),
                  verb=T(["ask about {x}", "arrange a viewing of {x}", "message the agent about {x}"], ["pregunta por {x}", "pide visita para {x}", "escribe a la agencia por {x}"],
                         ["demande une visite pour {x}", "renseigne-toi sur {x}", "écris à l'agence pour {x}"], ["stell eine Anfrage für {x}", "vereinbar eine Besichtigung für {x}", "schreib dem Makler, dass ich {x} sehen will"])),
        share=SHARE),
    extras=dict(
        savesearch=B(T(["Save search"], ["Guardar búsqueda"], ["Enregistrer la recherche"], ["Suche speichern"]), icon="bell",
                     para=T(["tell me about new places like these", "alert me to new homes"], ["avísame de pisos nuevos así", "alerta de anuncios nuevos"], ["préviens-moi des nouvelles annonces", "une alerte pour les nouveaux logements"], ["sag mir bei neuen Wohnungen Bescheid", "Alarm für neue Anzeigen"])),
        drawmap=B(T(["Draw area"], ["Dibujar zona"], ["Dessiner une zone"], ["Gebiet zeichnen"]), icon="pencil",
                  para=T(["circle the neighbourhood I want"], ["marcar el barrio que quiero"], ["entourer le quartier que je veux"], ["das Viertel einkreisen, das ich will"])),
    ),
    form=dict(
        minbeds=F("combobox", T(["Bedrooms"], ["Habitaciones"], ["Pièces"], ["Zimmer"]), T(["how many rooms I need"], ["cuántos cuartos necesito"], ["combien de pièces il me faut"], ["wie viele Zimmer ich brauche"]),
                  T(["the bedrooms dropdown"], ["el desplegable de habitaciones"], ["la liste des pièces"], ["das Zimmer-Dropdown"]), options=T(["Any", "1+", "2+", "3+"], ["Indiferente", "1+", "2+", "3+"], ["Indifférent", "2+", "3+", "4+"], ["Egal", "2+", "3+", "4+"])),
        maxrent=F("textbox", T(["Max rent"], ["Alquiler máximo"], ["Loyer max"], ["Maximale Miete"]), T(["the most I can pay a month"], ["lo máximo que puedo pagar al mes"], ["le maximum que je peux payer par mois"], ["das Höchste, was ich im Monat zahlen kann"]),
                  T(["the rent box"], ["la casilla del alquiler"], ["le champ du loyer"], ["das Mietfeld"]), values=T(["1500"], ["900"], ["1100"], ["1200"])),
        pets=F("checkbox", T(["Pets allowed"], ["Se admiten mascotas"], ["Animaux acceptés"], ["Haustiere erlaubt"]), T(["I have a dog", "somewhere my cat can come"], ["tengo perro", "que pueda llevar al gato"], ["j'ai un chien", "où mon chat peut venir"], ["ich hab einen Hund", "wo meine Katze mit darf"])),
        balcony=F("checkbox", T(["Balcony"], ["Balcón"], ["Balcon"], ["Balkon"]), T(["somewhere to sit outside"], ["un sitio para salir fuera"], ["un coin dehors"], ["was zum Draußensitzen"])),
        furnished=F("checkbox", T(["Furnished"], ["Amueblado"], ["Meublé"], ["Möbliert"]), T(["with furniture already in"], ["que venga con muebles"], ["avec les meubles"], ["mit Möbeln drin"])),
    ),
    form_title=T(["Filters"], ["Filtros"], ["Filtres"], ["Filter"]),
    submit=B(T(["Show homes"], ["Ver pisos"], ["Voir les logements"], ["Wohnungen anzeigen"]), T(["update the listings"], ["actualiza los anuncios"], ["mets à jour les annonces"], ["die Anzeigen aktualisieren"])),
    absent=T(["the floor plan", "the virtual tour", "save the one on Baker Street", "the garage filter", "the price history", "the energy rating"],
             ["el plano", "la visita virtual", "guarda el de la calle Toledo", "el filtro de garaje", "el historial de precios", "la calificación energética"],
             ["le plan", "la visite virtuelle", "garde celui de la rue de Rivoli", "le filtre garage", "l'historique des prix", "le DPE"],
             ["den Grundriss", "den virtuellen Rundgang", "merk dir die in der Goethestraße", "den Garagen-Filter", "den Preisverlauf", "den Energieausweis"]),
    sites=[
        dict(brand="Nido", layout="cards", actions=["save", "contact"], icon_actions=False, header=["search", "account"], top=["savesearch"], n_items=[8, 9],
             form=["minbeds", "maxrent", "pets", "balcony"], primary_action="contact"),
        dict(brand="Wohnglück", layout="list", actions=["save", "share"], icon_actions=True, label_item=True, header=["menu", "notif", "account"], top=["savesearch", "drawmap"],
             top_icons=True, n_items=[7, 8], form=["maxrent", "furnished", "pets"]),
    ],
)

# =============================================================================================
def chat_items(lang, rng, n):
    ps = people(lang, rng, n)
    last = {"en": ["see you tomorrow!", "ok, sounds good", "did you get my photo?", "haha yes", "running 10 min late", "thanks a lot", "call me when you can", "on my way"],
            "es": ["¡hasta mañana!", "vale, perfecto", "¿te llegó la foto?", "jajaja sí", "llego 10 minutos tarde", "muchas gracias", "llámame cuando puedas", "voy para allá"],
            "fr": ["à demain !", "ok ça marche", "t'as reçu ma photo ?", "mdr oui", "j'ai 10 min de retard", "merci beaucoup", "appelle-moi quand tu peux", "j'arrive"],
            "de": ["bis morgen!", "ok, passt", "hast du mein Foto bekommen?", "haha ja", "bin 10 Minuten später da", "danke dir", "ruf mich an, wenn du kannst", "bin unterwegs"]}[lang]
    out = []
    for (f, l) in ps:
        x = {"en": f"the chat with {f}", "es": f"el chat con {f}", "fr": f"la conversation avec {f}", "de": f"den Chat mit {f}"}[lang]
        out.append(dict(title=f"{f} {l}", x=x, b=f"{f} {l}", sub=[rng.choice(last), f"{rng.randrange(8, 23)}:{rng.randrange(10, 59)}"]))
    return out


KINDS["chat"] = dict(
    noun=T(("conversation", "f"), ("conversación", "f"), ("conversation", "f"), ("Unterhaltung", "f")),
    pages=["chats-1", "chats-2"],
    h1=T(["Chats", "Messages"], ["Chats", "Mensajes"], ["Discussions", "Messages"], ["Chats", "Nachrichten"]),
    nav=[LNK(T(["Chats"], ["Chats"], ["Discussions"], ["Chats"])), LNK(T(["Calls"], ["Llamadas"], ["Appels"], ["Anrufe"]), T(["my phone calls"], ["mis llamadas"], ["mes coups de fil"], ["meine Telefonate"])),
         LNK(T(["Contacts"], ["Contactos"], ["Contacts"], ["Kontakte"])), LNK(T(["Archived"], ["Archivados"], ["Archivées"], ["Archiviert"]), T(["the old hidden chats"], ["los chats escondidos"], ["les vieilles discussions rangées"], ["die weggepackten Chats"]))],
    tabs=[TAB(T(["All"], ["Todos"], ["Toutes"], ["Alle"])), TAB(T(["Unread"], ["No leídos"], ["Non lues"], ["Ungelesen"]), T(["the ones I haven't read"], ["los que no he leído"], ["celles que je n'ai pas lues"], ["die ich noch nicht gelesen hab"])),
          TAB(T(["Groups"], ["Grupos"], ["Groupes"], ["Gruppen"]))],
    cols=T(["Contact", "Last message", "Time"], ["Contacto", "Último mensaje", "Hora"], ["Contact", "Dernier message", "Heure"], ["Kontakt", "Letzte Nachricht", "Uhrzeit"]),
    items=chat_items,
    actions=dict(
        callc=B(T(["Call"], ["Llamar"], ["Appeler"], ["Anrufen"]), icon="phone",
                verb=T(["call {b}", "ring {b}", "phone {b}"], ["llama a {b}", "dale un toque a {b}", "telefonea a {b}"], ["appelle {b}", "passe un coup de fil à {b}", "téléphone à {b}"], ["ruf {b} an", "klingel bei {b} durch", "telefonier mit {b}"])),
        mute=B(T(["Mute"], ["Silenciar"], ["Mettre en sourdine"], ["Stummschalten"]), icon="volume",
               verb=T(["mute {x}", "silence {x}"], ["silencia {x}", "que no suene {x}"], ["mets {x} en sourdine", "coupe les notifs de {x}"], ["schalt {x} stumm", "{x} stumm"])),
        delete=DELETE, more=MORE),
    extras=dict(
        newchat=B(T(["New chat"], ["Nuevo chat"], ["Nouvelle discussion"], ["Neuer Chat"]), icon="plus",
                  para=T(["message someone new", "start a conversation"], ["escribirle a alguien nuevo", "empezar una conversación"], ["écrire à quelqu'un d'autre", "lancer une discussion"], ["jemand Neuem schreiben", "eine Unterhaltung anfangen"])),
        attach=B(T(["Attach file"], ["Adjuntar archivo"], ["Joindre un fichier"], ["Datei anhängen"]), icon="paperclip",
                 para=T(["send a photo", "add a document"], ["mandar una foto", "añadir un documento"], ["envoyer une photo", "ajouter un document"], ["ein Foto schicken", "ein Dokument anhängen"])),
        emoji=B(T(["Emoji"], ["Emojis"], ["Émojis"], ["Emojis"]), para=T(["the smileys", "a little face"], ["las caritas", "una carita"], ["les smileys", "une petite tête"], ["die Smileys", "ein Gesichtchen"])),
    ),
    form=dict(
        msg=F("textbox", T(["Type a message", "Message"], ["Escribe un mensaje", "Mensaje"], ["Écrire un message", "Message"], ["Nachricht schreiben", "Nachricht"]),
              T(["where I type", "the writing bit at the bottom"], ["donde se escribe", "la parte de abajo para escribir"], ["là où on tape", "la zone en bas pour écrire"], ["wo ich tippe", "das Schreibding unten"]),
              T(["the message box", "the chat field"], ["la caja del mensaje", "el campo del chat"], ["la zone de message", "le champ du chat"], ["das Nachrichtenfeld", "das Chatfeld"]), values=T(["see you at 8"], ["nos vemos a las 8"], ["on se voit à 8 h"], ["bis um 8"])),
        enter=F("checkbox", T(["Press Enter to send"], ["Enviar con Intro"], ["Entrée pour envoyer"], ["Mit Enter senden"]), T(["send when I hit return"], ["que se mande al darle a Intro"], ["envoyer avec la touche Entrée"], ["abschicken mit der Eingabetaste"])),
    ),
    form_title=T(["Reply"], ["Responder"], ["Répondre"], ["Antworten"]),
    submit=B(T(["Send"], ["Enviar"], ["Envoyer"], ["Senden"]), icon="plane",
             para=T(["fire it off", "send what I wrote"], ["mándalo", "envía lo que he escrito"], ["envoie-le", "envoie ce que j'ai écrit"], ["schick das ab", "schick, was ich geschrieben hab"])),
    absent=T(["the voice message button", "call the family group", "the video call button", "the stickers", "the chat with Mum", "the read receipts"],
             ["el botón de nota de voz", "llama al grupo de la familia", "el botón de videollamada", "los stickers", "el chat con mamá", "el doble check"],
             ["le bouton message vocal", "appelle le groupe de la famille", "le bouton appel vidéo", "les stickers", "la conversation avec maman", "les accusés de lecture"],
             ["den Sprachnachricht-Knopf", "ruf die Familiengruppe an", "den Videoanruf-Knopf", "die Sticker", "den Chat mit Mama", "die Lesebestätigungen"]),
    sites=[
        dict(brand="Parlo", layout="list", actions=["callc", "more"], icon_actions=True, label_item=True, header=["search", "settings", "account"], top=["newchat"], top_icons=True,
             n_items=[8, 9], form=["msg"], pager=False),
        dict(brand="Charla", layout="list", actions=["mute", "delete"], icon_actions=True, header=["menu", "search", "notif"], top=["newchat", "attach", "emoji"],
             n_items=[9, 7], form=["msg", "enter"], pager=False),
    ],
)

# =============================================================================================
ISSUES = T(["Login button does nothing on Safari", "Crash when uploading large images", "Typo on the pricing page", "Add dark mode", "Search is slow with filters",
            "Export to CSV drops accents", "Password reset email never arrives", "Mobile menu overlaps the logo", "Update the privacy policy", "Flaky test in checkout"],
           ["El botón de acceso no hace nada en Safari", "Se cuelga al subir imágenes grandes", "Errata en la página de precios", "Añadir modo oscuro", "La búsqueda va lenta con filtros",
            "El CSV exportado pierde las tildes", "No llega el correo de cambiar contraseña", "El menú móvil tapa el logo", "Actualizar la política de privacidad", "Test inestable en el pago"],
           ["Le bouton de connexion ne fait rien sous Safari", "Plantage à l'envoi de grosses images", "Coquille sur la page tarifs", "Ajouter un mode sombre", "La recherche rame avec des filtres",
            "L'export CSV perd les accents", "Le mail de réinitialisation n'arrive jamais", "Le menu mobile chevauche le logo", "Mettre à jour la politique de confidentialité", "Test instable dans le paiement"],
           ["Login-Button reagiert nicht in Safari", "Absturz beim Hochladen großer Bilder", "Tippfehler auf der Preisseite", "Dunkelmodus hinzufügen", "Suche mit Filtern langsam",
            "CSV-Export verliert Umlaute", "Passwort-Mail kommt nie an", "Mobilmenü überdeckt das Logo", "Datenschutzerklärung aktualisieren", "Wackeliger Test im Checkout"])
ISSX = T(["the Safari bug", "the upload crash", "the typo one", "the dark mode one", "the slow search issue", "the CSV one", "the password email bug", "the mobile menu bug", "the privacy policy one", "the flaky test"],
         ["el fallo de Safari", "el cuelgue al subir", "lo de la errata", "lo del modo oscuro", "lo de la búsqueda lenta", "lo del CSV", "lo del correo de la contraseña", "el fallo del menú móvil", "lo de la política de privacidad", "el test inestable"],
         ["le bug Safari", "le plantage à l'envoi", "celui de la coquille", "celui du mode sombre", "le souci de recherche lente", "celui du CSV", "le bug du mail de mot de passe", "le bug du menu mobile", "celui de la politique de confidentialité", "le test instable"],
         ["den Safari-Bug", "den Upload-Absturz", "das mit dem Tippfehler", "das mit dem Dunkelmodus", "das Problem mit der langsamen Suche", "das mit dem CSV", "den Bug mit der Passwort-Mail", "den Bug mit dem Mobilmenü", "das mit der Datenschutzerklärung", "den wackeligen Test"])


def issue_items(lang, rng, n):
    idx = rng.sample(range(10), min(n, 10))
    st = {"en": ["Open", "In progress", "In review"], "es": ["Abierta", "En curso", "En revisión"], "fr": ["Ouvert", "En cours", "En revue"], "de": ["Offen", "In Arbeit", "Im Review"]}[lang]
    out = []
    for i in idx:
        num = f"#{rng.randrange(100, 999)}"
        out.append(dict(title=ISSUES[lang][i], x=ISSX[lang][i], b=ISSUES[lang][i], sub=[num, rng.choice(st), rng.choice(FIRST[lang])]))
    return out


KINDS["issues"] = dict(
    noun=T(("issue", "m"), ("incidencia", "f"), ("ticket", "m"), ("Ticket", "n")),
    pages=["open-1", "open-2"],
    h1=T(["Issues", "Sprint board"], ["Incidencias", "Tablero del sprint"], ["Tickets", "Tableau du sprint"], ["Tickets", "Sprint-Board"]),
    nav=[LNK(T(["Code"], ["Código"], ["Code"], ["Code"])), LNK(T(["Issues"], ["Incidencias"], ["Tickets"], ["Tickets"])), LNK(T(["Pull requests"], ["Pull requests"], ["Pull requests"], ["Pull-Requests"]), T(["the code changes waiting for review"], ["los cambios pendientes de revisar"], ["les modifs en attente de relecture"], ["die Änderungen, die auf Review warten"])),
         LNK(T(["Milestones"], ["Hitos"], ["Jalons"], ["Meilensteine"])), LNK(T(["Wiki"], ["Wiki"], ["Wiki"], ["Wiki"]), T(["the project notes"], ["las notas del proyecto"], ["les notes du projet"], ["die Projektnotizen"])), LNK(T(["Insights"], ["Estadísticas"], ["Statistiques"], ["Statistiken"]))],
    tabs=[TAB(T(["Open"], ["Abiertas"], ["Ouverts"], ["Offen"])), TAB(T(["Closed"], ["Cerradas"], ["Fermés"], ["Geschlossen"]), T(["the finished ones"], ["las que ya están resueltas"], ["ceux qui sont réglés"], ["die erledigten"])),
          TAB(T(["Assigned to me"], ["Asignadas a mí"], ["Qui me sont assignés"], ["Mir zugewiesen"]), T(["my tickets", "what's on my plate"], ["las mías", "lo que me toca a mí"], ["les miens", "ce qui est pour moi"], ["meine Tickets", "was ich erledigen muss"]))],
    cols=T(["Title", "Number", "Status", "Assignee"], ["Título", "Número", "Estado", "Responsable"], ["Titre", "Numéro", "Statut", "Assigné à"], ["Titel", "Nummer", "Status", "Zuständig"]),
    items=issue_items,
    actions=dict(
        close=B(T(["Close issue", "Resolve"], ["Cerrar incidencia", "Resolver"], ["Fermer le ticket", "Résoudre"], ["Ticket schließen", "Erledigen"]),
                verb=T(["close {x}", "mark {x} as done", "resolve {x}"], ["cierra {x}", "da por resuelto {x}", "marca {x} como hecho"], ["ferme {x}", "marque {x} comme réglé", "résous {x}"], ["schließ {x}", "markier {x} als erledigt", "mach {x} zu"])),
        assign=B(T(["Assign to me"], ["Asignármela"], ["Me l'assigner"], ["Mir zuweisen"]), icon="user",
                 verb=T(["give me {x}", "I'll take {x}", "put {x} on me"], ["pásame {x}", "me encargo yo de {x}", "asígname {x}"], ["donne-moi {x}", "je prends {x}", "mets {x} sur moi"], ["gib mir {x}", "ich übernehm {x}", "weis mir {x} zu"])),
        edit=EDIT, more=MORE),
    extras=dict(
        newissue=B(T(["New issue"], ["Nueva incidencia"], ["Nouveau ticket"], ["Neues Ticket"]), icon="plus",
                   para=T(["report a bug", "file a problem"], ["reportar un fallo", "abrir un problema"], ["signaler un bug", "ouvrir un problème"], ["einen Fehler melden", "ein Problem aufmachen"])),
        labels=B(T(["Labels"], ["Etiquetas"], ["Étiquettes"], ["Labels"]), para=T(["the coloured tags"], ["las etiquetas de colores"], ["les pastilles de couleur"], ["die bunten Schlagwörter"])),
        watch=B(T(["Watch"], ["Seguir"], ["Suivre"], ["Beobachten"]), icon="eye", para=T(["get notified about this project"], ["que me avisen de este proyecto"], ["être notifié pour ce projet"], ["bei diesem Projekt benachrichtigt werden"])),
    ),
    form=dict(
        label=F("combobox", T(["Label"], ["Etiqueta"], ["Étiquette"], ["Label"]), T(["filter by tag"], ["filtrar por etiqueta"], ["filtrer par étiquette"], ["nach Schlagwort filtern"]),
                options=T(["Any", "bug", "enhancement", "docs"], ["Cualquiera", "fallo", "mejora", "docs"], ["Toutes", "bug", "amélioration", "docs"], ["Alle", "Bug", "Verbesserung", "Doku"])),
        mine=F("checkbox", T(["Only my issues"], ["Solo las mías"], ["Seulement les miens"], ["Nur meine"]), T(["just what I'm working on"], ["solo en lo que estoy yo"], ["juste ce sur quoi je bosse"], ["nur woran ich arbeite"])),
        nocomments=F("checkbox", T(["No comments yet"], ["Sin comentarios"], ["Sans commentaire"], ["Ohne Kommentare"]), T(["ones nobody has replied to"], ["las que nadie ha contestado"], ["ceux où personne n'a répondu"], ["wo noch keiner geantwortet hat"])),
    ),
    form_title=T(["Filters"], ["Filtros"], ["Filtres"], ["Filter"]),
    submit=B(T(["Filter"], ["Filtrar"], ["Filtrer"], ["Filtern"]), T(["narrow it down"], ["acótalo"], ["réduis la liste"], ["eingrenzen"])),
    absent=T(["close the login timeout bug", "the roadmap", "the merge button", "the time tracking field", "the sprint burndown chart", "the bug about the footer"],
             ["cierra lo del timeout del login", "la hoja de ruta", "el botón de fusionar", "el campo de horas", "el gráfico del sprint", "el fallo del pie de página"],
             ["ferme le bug du délai de connexion", "la feuille de route", "le bouton fusionner", "le champ temps passé", "le burndown du sprint", "le bug du pied de page"],
             ["schließ den Login-Timeout-Bug", "die Roadmap", "den Merge-Button", "das Zeiterfassungsfeld", "das Burndown-Diagramm", "den Footer-Bug"]),
    sites=[
        dict(brand="Trackr", layout="table", actions=["assign", "close"], icon_actions=False, header=["search", "notif", "account"], top=["newissue", "labels"],
             n_items=[7, 8], form=["label", "mine"], select_rows=True),
        dict(brand="Tablero", layout="list", actions=["edit", "more"], icon_actions=True, label_item=True, header=["menu", "search", "help", "account"], top=["newissue", "watch"], top_icons=True,
             n_items=[9, 10], form=["label", "nocomments"]),
    ],
)
