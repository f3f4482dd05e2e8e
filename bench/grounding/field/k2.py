"""Kinds: mail, calendar, travel, settings, form (sign-up), table (invoices), dashboard, docs."""

from vocab import T, MONTHS, WEEKDAYS, CITIES
from kbase import KINDS, B, LNK, TAB, F, people, price, from_list, one

# Shared row actions (several kinds use them).
DELETE = B(T(["Delete", "Remove"], ["Eliminar", "Borrar"], ["Supprimer", "Effacer"], ["Löschen", "Entfernen"]), icon="trash",
           verb=T(["delete {x}", "remove {x}", "get rid of {x}", "bin {x}", "throw away {x}"],
                  ["borra {x}", "elimina {x}", "quita {x}", "tira {x} a la papelera", "fuera {x}"],
                  ["supprime {x}", "efface {x}", "vire {x}", "jette {x}", "mets {x} à la poubelle"],
                  ["lösch {x}", "entfern {x}", "{x} löschen", "wirf {x} weg", "schmeiß {x} raus"]))
EDIT = B(T(["Edit", "Change"], ["Editar", "Modificar"], ["Modifier", "Éditer"], ["Bearbeiten", "Ändern"]), icon="pencil",
         verb=T(["edit {x}", "change {x}", "make changes to {x}", "fix {x}"],
                ["edita {x}", "cambia {x}", "modifica {x}", "corrige {x}"],
                ["modifie {x}", "change {x}", "corrige {x}", "retouche {x}"],
                ["bearbeite {x}", "änder {x}", "{x} bearbeiten", "korrigier {x}"]))
MORE = B(T(["More options", "More actions"], ["Más opciones", "Más acciones"], ["Plus d'options", "Autres actions"], ["Weitere Optionen", "Mehr Aktionen"]), icon="dots",
         verb=T(["the options for {x}", "more stuff for {x}", "the menu on {x}"], ["las opciones de {b}", "más cosas de {b}", "el menú de {b}"],
                ["les options de {b}", "le menu pour {x}", "les autres actions pour {x}"], ["die Optionen von {b}", "das Menü bei {b}", "mehr Optionen für {x}"]))
SHARE = B(T(["Share"], ["Compartir"], ["Partager"], ["Teilen"]), icon="share",
          verb=T(["share {x}", "send {x} to someone", "pass {x} on"], ["comparte {x}", "mándale {x} a alguien", "pasa {x}"],
                 ["partage {x}", "envoie {x} à quelqu'un", "fais suivre {x}"], ["teil {x}", "schick {x} weiter", "{x} teilen"]))
DOWNLOAD = B(T(["Download"], ["Descargar"], ["Télécharger"], ["Herunterladen"]), icon="download",
             verb=T(["download {x}", "save {x} to my computer", "get a copy of {x}"], ["descarga {x}", "bájate {x}", "guarda {x} en el ordenador"],
                    ["télécharge {x}", "récupère {x}", "enregistre {x} sur l'ordi"], ["lad {x} runter", "{x} herunterladen", "speicher {x} auf dem Rechner"]))


def subj_items(subjects):
    def gen(lang, rng, n):
        ps = people(lang, rng, n)
        subs = rng.sample(subjects[lang], min(n, len(subjects[lang])))
        out = []
        for (f, l), s in zip(ps, subs):
            x = {"en": f"the email from {f}", "es": f"el correo de {f}", "fr": f"le mail de {f}", "de": f"die Mail von {f}"}[lang]
            day = rng.choice(WEEKDAYS[lang][:5])
            out.append(dict(title=s, x=x, b=f"{f} {l}", sub=[f"{f} {l}", day]))
        return out
    return gen


SUBJECTS = T(
    ["Team lunch on Friday", "Your invoice for March", "Quarterly report draft", "Flight confirmation", "Re: kitchen renovation",
     "Photos from the weekend", "Meeting moved to 3pm", "Book club this month", "Password reset request", "Welcome to the team",
     "Parking permit renewal", "Dinner on Saturday?"],
    ["Comida de equipo el viernes", "Tu factura de marzo", "Borrador del informe trimestral", "Confirmación de vuelo", "Re: reforma de la cocina",
     "Fotos del finde", "La reunión pasa a las 15:00", "Club de lectura de este mes", "Cambio de contraseña", "Bienvenida al equipo",
     "Renovación del permiso de aparcamiento", "¿Cenamos el sábado?"],
    ["Déjeuner d'équipe vendredi", "Votre facture de mars", "Brouillon du rapport trimestriel", "Confirmation de vol", "Re : travaux de la cuisine",
     "Photos du week-end", "Réunion décalée à 15 h", "Club de lecture du mois", "Réinitialisation du mot de passe", "Bienvenue dans l'équipe",
     "Renouvellement du badge parking", "Dîner samedi ?"],
    ["Teamessen am Freitag", "Ihre Rechnung für März", "Entwurf Quartalsbericht", "Flugbestätigung", "AW: Küchenrenovierung",
     "Fotos vom Wochenende", "Meeting auf 15 Uhr verschoben", "Buchclub diesen Monat", "Passwort zurücksetzen", "Willkommen im Team",
     "Parkausweis verlängern", "Abendessen am Samstag?"])

KINDS["mail"] = dict(
    noun=T(("email", "m"), ("correo", "m"), ("mail", "m"), ("Mail", "f")),
    pages=["inbox-1", "inbox-2"],
    h1=T(["Inbox", "Inbox"], ["Bandeja de entrada", "Recibidos"], ["Boîte de réception", "Messages reçus"], ["Posteingang", "Eingang"]),
    nav=[LNK(T(["Inbox"], ["Recibidos"], ["Réception"], ["Posteingang"])),
         LNK(T(["Starred"], ["Destacados"], ["Suivis"], ["Markiert"]), T(["my favourite emails"], ["los correos importantes que marqué"], ["les mails que j'ai mis de côté"], ["die Mails mit Sternchen"])),
         LNK(T(["Sent"], ["Enviados"], ["Envoyés"], ["Gesendet"]), T(["what I've mailed out", "stuff I sent"], ["lo que he mandado yo", "los que mandé"], ["ce que j'ai envoyé", "mes mails partis"], ["was ich verschickt hab", "meine rausgegangenen Mails"])),
         LNK(T(["Drafts"], ["Borradores"], ["Brouillons"], ["Entwürfe"]), T(["my unfinished emails"], ["los correos a medio escribir"], ["les mails pas finis"], ["die angefangenen Mails"])),
         LNK(T(["Spam", "Junk"], ["Spam", "Correo no deseado"], ["Spam", "Indésirables"], ["Spam", "Junk-E-Mail"]), T(["the junk folder"], ["la carpeta de basura"], ["le dossier des pourriels"], ["den Werbemüll"])),
         LNK(T(["Archive"], ["Archivo"], ["Archives"], ["Archiv"]), T(["old stored mail"], ["el correo guardado antiguo"], ["les vieux mails rangés"], ["die abgelegten alten Mails"]))],
    tabs=[TAB(T(["Primary"], ["Principal"], ["Principale"], ["Allgemein"])), TAB(T(["Social"], ["Social"], ["Réseaux sociaux"], ["Soziale Netzwerke"])),
          TAB(T(["Promotions"], ["Promociones"], ["Promotions"], ["Werbung"]), T(["the ads tab"], ["la de publicidad"], ["l'onglet des pubs"], ["den Reklame-Reiter"])),
          TAB(T(["Updates"], ["Notificaciones"], ["Mises à jour"], ["Benachrichtigungen"]))],
    cols=T(["Subject", "From", "Date"], ["Asunto", "De", "Fecha"], ["Objet", "De", "Date"], ["Betreff", "Von", "Datum"]),
    items=subj_items(SUBJECTS),
    actions=dict(
        reply=B(T(["Reply"], ["Responder"], ["Répondre"], ["Antworten"]), icon="left",
                verb=T(["reply to {x}", "answer {x}", "write back to {b}", "respond to {x}"], ["responde a {x}", "contesta {x}", "contéstale a {b}", "responde {x}"],
                       ["réponds à {x}", "réponds à {b}", "écris une réponse à {b}", "répondre à {x}"], ["antworte auf {x}", "schreib {b} zurück", "auf {x} antworten", "antworte {b}"])),
        archive=B(T(["Archive"], ["Archivar"], ["Archiver"], ["Archivieren"]), icon="download",
                  verb=T(["archive {x}", "file away {x}", "put {x} away"], ["archiva {x}", "guarda {x} en el archivo", "quita {x} de la bandeja"],
                         ["archive {x}", "range {x}", "classe {x}"], ["archivier {x}", "leg {x} ab", "{x} ins Archiv"])),
        delete=DELETE,
        star=B(T(["Star", "Flag"], ["Destacar", "Marcar"], ["Suivre", "Marquer"], ["Markieren", "Mit Stern"]), icon="star",
               verb=T(["star {x}", "flag {x}", "mark {x} as important"], ["destaca {x}", "marca {x} como importante", "ponle estrella a {x}"],
                      ["mets une étoile à {x}", "marque {x} comme important", "suis {x}"], ["markier {x}", "gib {x} einen Stern", "{x} als wichtig markieren"])),
    ),
    extras=dict(
        compose=B(T(["Compose", "New message"], ["Redactar", "Nuevo mensaje"], ["Nouveau message", "Écrire"], ["Verfassen", "Neue Nachricht"]), icon="pencil",
                  para=T(["write a new email", "start an email", "I want to write to someone"], ["escribir un correo nuevo", "empezar un mensaje", "quiero escribirle a alguien"],
                         ["écrire un nouveau mail", "commencer un mail", "je veux écrire à quelqu'un"], ["eine neue Mail schreiben", "eine Mail anfangen", "ich will jemandem schreiben"])),
        refresh=B(T(["Refresh"], ["Actualizar"], ["Actualiser"], ["Aktualisieren"]), icon="refresh",
                  para=T(["check for new mail", "reload my inbox"], ["mira si hay correo nuevo", "recarga la bandeja"], ["regarde s'il y a des nouveaux mails", "recharge la boîte"], ["nach neuen Mails schauen", "den Eingang neu laden"])),
    ),
    form=dict(
        to=F("textbox", T(["To", "Recipients"], ["Para", "Destinatarios"], ["À", "Destinataires"], ["An", "Empfänger"]),
             T(["who it goes to", "the address I'm sending to"], ["a quién va", "la dirección a la que lo mando"], ["à qui ça part", "l'adresse du destinataire"], ["an wen das geht", "die Adresse, an die ich schicke"]),
             T(["the recipient field", "the to box"], ["el campo del destinatario"], ["le champ destinataire"], ["das Empfängerfeld"]),
             values=T(["tom.reed@example.com"], ["marta.ruiz@example.es"], ["lea.roux@example.fr"], ["jonas.weber@example.de"])),
        subject=F("textbox", T(["Subject"], ["Asunto"], ["Objet"], ["Betreff"]),
                  T(["the title of my email", "what it's about"], ["el título del correo", "de qué va"], ["le titre du mail", "de quoi ça parle"], ["die Überschrift der Mail", "worum es geht"]),
                  T(["the subject line"], ["la línea del asunto"], ["la ligne d'objet"], ["die Betreffzeile"])),
        body=F("textbox", T(["Message", "Body"], ["Mensaje", "Cuerpo del mensaje"], ["Message", "Corps du message"], ["Nachricht", "Text"]),
               T(["where I write the actual text", "the big box for writing"], ["donde escribo el texto", "el recuadro grande para escribir"], ["là où j'écris le texte", "la grande zone pour écrire"], ["wo der eigentliche Text hinkommt", "das große Schreibfeld"]),
               multiline=True),
        receipt=F("checkbox", T(["Request read receipt"], ["Solicitar confirmación de lectura"], ["Demander un accusé de lecture"], ["Lesebestätigung anfordern"]),
                  T(["let me know when they open it", "tell me if it's been read"], ["avísame cuando lo lean", "que me digan si lo han leído"], ["préviens-moi quand il sera lu", "savoir s'ils l'ont ouvert"], ["sag mir, wenn die das lesen", "Bescheid, wenn's geöffnet wurde"])),
    ),
    form_title=T(["Quick compose"], ["Mensaje rápido"], ["Message rapide"], ["Schnell schreiben"]),
    submit=B(T(["Send"], ["Enviar"], ["Envoyer"], ["Senden"]), icon="plane",
             para=T(["fire it off", "off it goes", "mail it"], ["mándalo ya", "que salga el correo", "despáchalo"], ["expédie-le", "fais partir le mail", "balance-le"], ["schick's ab", "raus damit", "abschicken"])),
    absent=T(["the snooze button", "the labels menu", "the print button", "reply to the one from Grandma", "the unsubscribe link", "the calendar invite"],
             ["el botón de posponer", "el menú de etiquetas", "el botón de imprimir", "responde al de la abuela", "el enlace para darse de baja", "la invitación del calendario"],
             ["le bouton pour reporter", "le menu des libellés", "le bouton imprimer", "réponds à celui de mamie", "le lien de désabonnement", "l'invitation d'agenda"],
             ["den Schlummern-Knopf", "das Label-Menü", "den Drucken-Knopf", "antworte auf die von Oma", "den Abmelde-Link", "die Kalendereinladung"]),
    sites=[
        dict(brand="Postbox", layout="list", actions=["reply", "archive", "delete"], icon_actions=True, header=["menu", "search", "settings", "help", "account"],
             top=["compose", "refresh"], top_icons=False, n_items=[10, 9], form=[], select_rows=True),
        dict(brand="Correo Nube", layout="table", actions=["star", "delete"], icon_actions=True, label_item=True, header=["search", "notif", "account", "signout"],
             top=["compose"], n_items=[8, 7], form=["to", "subject", "body", "receipt"], form_cancel=True, search_btn_icon=True),
    ],
)

# =============================================================================================
EVENTS = T(
    ["the dentist appointment", "the team stand-up", "the budget review", "the piano lesson", "the parents' evening", "the lunch with Mark",
     "the car service", "the project kickoff", "the doctor's appointment", "the football match", "the haircut", "the client call"],
    ["la cita con el dentista", "la reunión diaria", "la revisión del presupuesto", "la clase de piano", "la reunión del cole", "la comida con Mark",
     "la revisión del coche", "el arranque del proyecto", "la cita con el médico", "el partido de fútbol", "la peluquería", "la llamada con el cliente"],
    ["le rendez-vous chez le dentiste", "le point d'équipe", "la revue du budget", "le cours de piano", "la réunion parents-profs", "le déjeuner avec Marc",
     "la révision de la voiture", "le lancement du projet", "le rendez-vous chez le médecin", "le match de foot", "le coiffeur", "l'appel client"],
    ["den Zahnarzttermin", "das Team-Meeting", "die Budgetbesprechung", "die Klavierstunde", "den Elternabend", "das Mittagessen mit Markus",
     "die Inspektion vom Auto", "den Projektstart", "den Arzttermin", "das Fußballspiel", "den Friseurtermin", "den Kundentermin"])


def cal_sub(lang, rng):
    h = rng.choice([8, 9, 10, 11, 13, 14, 15, 16, 17, 18])
    m = rng.choice(["00", "15", "30", "45"])
    t = f"{h}:{m}" if lang != "en" else f"{h if h <= 12 else h - 12}:{m} {'am' if h < 12 else 'pm'}"
    return [rng.choice(WEEKDAYS[lang]), t]


KINDS["calendar"] = dict(
    noun=T(("event", "m"), ("evento", "m"), ("événement", "m"), ("Termin", "m")),
    pages=["week-1", "week-2"],
    h1=T(["This week", "Next week"], ["Esta semana", "La semana que viene"], ["Cette semaine", "La semaine prochaine"], ["Diese Woche", "Nächste Woche"]),
    nav=[LNK(T(["Calendar"], ["Calendario"], ["Agenda"], ["Kalender"])), LNK(T(["Tasks"], ["Tareas"], ["Tâches"], ["Aufgaben"]), T(["my to-do list"], ["mi lista de pendientes"], ["ma liste de trucs à faire"], ["meine To-do-Liste"])),
         LNK(T(["Contacts"], ["Contactos"], ["Contacts"], ["Kontakte"]), T(["my address book"], ["la agenda de teléfonos"], ["mon carnet d'adresses"], ["mein Adressbuch"])),
         LNK(T(["Reminders"], ["Recordatorios"], ["Rappels"], ["Erinnerungen"])), LNK(T(["Shared calendars"], ["Calendarios compartidos"], ["Agendas partagés"], ["Geteilte Kalender"]))],
    tabs=[TAB(T(["Day"], ["Día"], ["Jour"], ["Tag"])), TAB(T(["Week"], ["Semana"], ["Semaine"], ["Woche"])),
          TAB(T(["Month"], ["Mes"], ["Mois"], ["Monat"]), T(["the whole month view"], ["ver el mes entero"], ["la vue du mois entier"], ["die Monatsansicht"])),
          TAB(T(["Schedule", "Agenda"], ["Agenda", "Lista"], ["Planning", "Liste"], ["Terminliste", "Agenda"]))],
    cols=T(["Event", "Day", "Time"], ["Evento", "Día", "Hora"], ["Événement", "Jour", "Heure"], ["Termin", "Tag", "Uhrzeit"]),
    items=lambda lang, rng, n: from_list(EVENTS, lang, rng, n, sub=cal_sub),
    actions=dict(edit=EDIT, delete=DELETE,
                 dup=B(T(["Duplicate", "Copy"], ["Duplicar", "Copiar"], ["Dupliquer", "Copier"], ["Duplizieren", "Kopieren"]),
                       verb=T(["make a copy of {x}", "duplicate {x}", "clone {x}"], ["haz una copia de {x}", "duplica {x}", "copia {x}"],
                              ["fais une copie de {x}", "duplique {x}", "copie {x}"], ["mach eine Kopie von {b}", "dupliziere {x}", "kopier {x}"]))),
    extras=dict(
        newevent=B(T(["New event", "Create"], ["Nuevo evento", "Crear"], ["Nouvel événement", "Créer"], ["Neuer Termin", "Erstellen"]), icon="plus",
                   para=T(["add something to my calendar", "put a new appointment in", "schedule something"], ["apunta algo en el calendario", "meter una cita nueva", "programar algo"],
                          ["ajoute un truc à l'agenda", "mettre un nouveau rendez-vous", "planifier quelque chose"], ["was Neues eintragen", "einen Termin anlegen", "etwas einplanen"])),
        today=B(T(["Today"], ["Hoy"], ["Aujourd'hui"], ["Heute"]), para=T(["jump back to now", "back to the current day"], ["vuelve al día de hoy", "ir a hoy"], ["revenir à maintenant", "retour au jour actuel"], ["zurück zu jetzt", "zum aktuellen Tag"])),
    ),
    form=dict(
        title=F("textbox", T(["Title", "Event name"], ["Título", "Nombre del evento"], ["Titre", "Nom de l'événement"], ["Titel", "Terminname"]),
                T(["what the event is called", "the name of the thing"], ["cómo se llama el evento", "el nombre de la cita"], ["comment s'appelle l'événement", "le nom du rendez-vous"], ["wie der Termin heißt", "den Namen vom Termin"]),
                values=T(["Yoga class"], ["Clase de yoga"], ["Cours de yoga"], ["Yogakurs"])),
        date=F("textbox", T(["Date"], ["Fecha"], ["Date"], ["Datum"]), T(["which day it is"], ["qué día es"], ["quel jour c'est"], ["an welchem Tag"]),
               T(["the date field"], ["el campo de la fecha"], ["le champ date"], ["das Datumsfeld"]), type="date"),
        allday=F("checkbox", T(["All day"], ["Todo el día"], ["Toute la journée"], ["Ganztägig"]),
                 T(["it lasts the whole day", "no specific time"], ["que dure el día entero", "sin hora concreta"], ["ça dure toute la journée", "pas d'heure précise"], ["den ganzen Tag lang", "ohne Uhrzeit"])),
        repeat=F("combobox", T(["Repeat"], ["Repetir"], ["Répéter"], ["Wiederholen"]),
                 T(["make it happen every week", "how often it comes back"], ["que se repita cada semana", "cada cuánto se repite"], ["que ça revienne chaque semaine", "la fréquence"], ["jede Woche wiederholen", "wie oft das kommt"]),
                 T(["the repeat dropdown"], ["el desplegable de repetición"], ["le menu de répétition"], ["das Wiederholungs-Dropdown"]),
                 options=T(["Never", "Daily", "Weekly", "Monthly"], ["Nunca", "Cada día", "Cada semana", "Cada mes"], ["Jamais", "Tous les jours", "Toutes les semaines", "Tous les mois"], ["Nie", "Täglich", "Wöchentlich", "Monatlich"])),
        notify=F("switch", T(["Notify me"], ["Avisarme"], ["Me prévenir"], ["Erinnern"]),
                 T(["remind me before", "ping me before it starts"], ["que me recuerde antes", "avísame un rato antes"], ["fais-moi un rappel avant", "préviens-moi avant que ça commence"], ["erinner mich vorher", "gib mir vorher Bescheid"])),
    ),
    form_title=T(["Quick add"], ["Añadir rápido"], ["Ajout rapide"], ["Schnell eintragen"]),
    submit=B(T(["Save event", "Add to calendar"], ["Guardar evento", "Añadir al calendario"], ["Enregistrer", "Ajouter à l'agenda"], ["Termin speichern", "Eintragen"]),
             T(["put it in the calendar", "lock it in"], ["que quede apuntado", "apúntalo"], ["note-le dans l'agenda", "cale-le"], ["trag das ein", "festmachen"])),
    absent=T(["the time zone picker", "the video call link", "delete the yoga class", "the birthday reminders", "the year view", "the invite guests button"],
             ["el selector de zona horaria", "el enlace de la videollamada", "borra la clase de yoga", "los recordatorios de cumpleaños", "la vista del año", "el botón de invitar"],
             ["le choix du fuseau horaire", "le lien de visio", "supprime le cours de yoga", "les rappels d'anniversaire", "la vue annuelle", "le bouton inviter"],
             ["die Zeitzonen-Auswahl", "den Link zur Videokonferenz", "lösch den Yogakurs", "die Geburtstagserinnerungen", "die Jahresansicht", "den Einladen-Knopf"]),
    sites=[
        dict(brand="Weekly", layout="table", actions=["edit", "delete"], icon_actions=True, header=["menu", "search", "settings", "account"],
             top=["newevent", "today"], n_items=[8, 7], form=["title", "date", "allday", "repeat", "notify"], pager=False),
        dict(brand="Agenda Plus", layout="cards", actions=["edit", "dup", "delete"], icon_actions=False, header=["search", "notif", "help", "account"],
             top=["today", "newevent"], n_items=[9, 6], form=["title", "allday", "notify"]),
    ],
)

# =============================================================================================
def flight_items(lang, rng, n):
    cs = CITIES[lang]
    dep = cs[0] if rng.random() < 0.5 else cs[1]
    out = []
    used = set()
    airl = ["Iberia", "Air Europa", "Lufthansa", "Vueling", "easyJet", "Air France", "KLM", "Eurowings", "Ryanair", "TAP"]
    for i in range(n):
        while True:
            h, m = rng.randrange(6, 22), rng.choice(["05", "15", "30", "40", "50"])
            if (h, m) not in used:
                used.add((h, m))
                break
        t = f"{h:02d}:{m}"
        x = {"en": f"the {t} flight", "es": f"el vuelo de las {t}", "fr": f"le vol de {h} h {m}", "de": f"den Flug um {t}"}[lang]
        a = rng.choice(airl)
        out.append(dict(title=f"{a} {t}", x=x, b=t, sub=[price(lang, rng, 40, 400), rng.choice(["1h 45m", "2h 10m", "3h 05m", "1h 20m"])]))
    out.sort(key=lambda it: it["b"])
    return out


KINDS["travel"] = dict(
    noun=T(("flight", "m"), ("vuelo", "m"), ("vol", "m"), ("Flug", "m")),
    pages=["results-1", "results-2"],
    h1=T(["Choose your outbound flight", "Available flights"], ["Elige tu vuelo de ida", "Vuelos disponibles"], ["Choisissez votre vol aller", "Vols disponibles"], ["Hinflug wählen", "Verfügbare Flüge"]),
    nav=[LNK(T(["Flights"], ["Vuelos"], ["Vols"], ["Flüge"])), LNK(T(["Hotels"], ["Hoteles"], ["Hôtels"], ["Hotels"]), T(["somewhere to stay"], ["alojamiento"], ["un endroit où dormir"], ["eine Unterkunft"])),
         LNK(T(["Car rental"], ["Alquiler de coches"], ["Location de voitures"], ["Mietwagen"]), T(["rent a car"], ["alquilar un coche"], ["louer une bagnole"], ["ein Auto mieten"])),
         LNK(T(["My trips"], ["Mis viajes"], ["Mes voyages"], ["Meine Reisen"]), T(["the bookings I already made"], ["mis reservas"], ["mes réservations"], ["meine Buchungen"])),
         LNK(T(["Check-in"], ["Facturación online"], ["Enregistrement"], ["Online-Check-in"]), T(["get my boarding pass"], ["sacar la tarjeta de embarque"], ["avoir ma carte d'embarquement"], ["die Bordkarte holen"])),
         LNK(T(["Deals"], ["Ofertas"], ["Bons plans"], ["Angebote"]))],
    tabs=[TAB(T(["Cheapest"], ["Más barato"], ["Le moins cher"], ["Günstigste"])), TAB(T(["Fastest"], ["Más rápido"], ["Le plus rapide"], ["Schnellste"])),
          TAB(T(["Best"], ["Recomendado"], ["Meilleur"], ["Empfohlen"]))],
    cols=T(["Flight", "Price", "Duration"], ["Vuelo", "Precio", "Duración"], ["Vol", "Prix", "Durée"], ["Flug", "Preis", "Dauer"]),
    items=flight_items,
    actions=dict(
        select=B(T(["Select", "Book"], ["Seleccionar", "Reservar"], ["Sélectionner", "Réserver"], ["Auswählen", "Buchen"]),
                 verb=T(["book {x}", "I'll take {x}", "go with {x}", "pick {x}"], ["reserva {x}", "me quedo con {x}", "coge {x}", "elige {x}"],
                        ["réserve {x}", "je prends {x}", "on part sur {x}", "choisis {x}"], ["buch {x}", "ich nehm {x}", "nimm {x}", "wähl {x}"])),
        details=B(T(["Details", "Flight details"], ["Detalles", "Ver detalles"], ["Détails", "Voir le détail"], ["Details", "Flugdetails"]),
                  verb=T(["more info on {x}", "show me the details of {x}", "what's included with {x}"], ["más información de {x}", "los detalles de {x}", "qué incluye {x}"],
                         ["plus d'infos sur {x}", "le détail de {x}", "ce qui est compris dans {x}"], ["zeig mir {x} genauer", "Details für {x}", "was ist beim Flug um {b} dabei"])),
        fav=B(T(["Save", "Watch price"], ["Guardar", "Seguir precio"], ["Sauvegarder", "Suivre le prix"], ["Merken", "Preis beobachten"]), icon="heart",
              verb=T(["keep an eye on {x}", "save {x}"], ["vigila el precio de {x}", "guarda {x}"], ["surveille {x}", "garde {x}"], ["behalt {x} im Auge", "merk dir {x}"])),
    ),
    extras=dict(
        swap=B(T(["Swap origin and destination"], ["Intercambiar origen y destino"], ["Inverser départ et arrivée"], ["Start und Ziel tauschen"]), icon="refresh",
               para=T(["flip the cities round", "the other way round"], ["dale la vuelta a las ciudades", "al revés"], ["inverse les villes", "dans l'autre sens"], ["die Städte umdrehen", "andersrum"])),
    ),
    form=dict(
        origin=F("textbox", T(["From", "Departure airport"], ["Origen", "Aeropuerto de salida"], ["Départ", "Aéroport de départ"], ["Von", "Abflughafen"]),
                 T(["where I'm flying from", "my starting city"], ["desde dónde salgo", "mi ciudad de salida"], ["d'où je pars", "ma ville de départ"], ["wo ich losfliege", "meine Startstadt"]),
                 T(["the origin field"], ["el campo de origen"], ["le champ de départ"], ["das Abflugfeld"]), values=CITIES),
        dest=F("textbox", T(["To", "Destination"], ["Destino", "Adónde"], ["Arrivée", "Destination"], ["Nach", "Ziel"]),
               T(["where I'm going", "the city I want to reach"], ["adónde voy", "la ciudad a la que quiero ir"], ["où je vais", "la ville où je veux aller"], ["wo ich hinwill", "die Zielstadt"]),
               T(["the destination box"], ["la casilla del destino"], ["le champ destination"], ["das Zielfeld"])),
        pax=F("combobox", T(["Passengers", "Travellers"], ["Pasajeros", "Viajeros"], ["Passagers", "Voyageurs"], ["Reisende", "Passagiere"]),
              T(["how many people are going", "number of people"], ["cuántos vamos", "el número de personas"], ["combien on est", "le nombre de personnes"], ["wie viele mitfliegen", "die Personenzahl"]),
              T(["the passengers dropdown"], ["el desplegable de pasajeros"], ["la liste des passagers"], ["das Dropdown für die Reisenden"]),
              options=T(["1 adult", "2 adults", "3 adults", "2 adults, 1 child"], ["1 adulto", "2 adultos", "3 adultos", "2 adultos, 1 niño"],
                        ["1 adulte", "2 adultes", "3 adultes", "2 adultes, 1 enfant"], ["1 Erwachsener", "2 Erwachsene", "3 Erwachsene", "2 Erwachsene, 1 Kind"])),
        direct=F("checkbox", T(["Direct flights only", "Non-stop only"], ["Solo vuelos directos", "Sin escalas"], ["Vols directs uniquement", "Sans escale"], ["Nur Direktflüge", "Ohne Umstieg"]),
                 T(["no changing planes", "no layovers please"], ["nada de escalas", "sin cambiar de avión"], ["pas de correspondance", "sans changer d'avion"], ["ohne Umsteigen", "keine Zwischenlandung"])),
        bags=F("checkbox", T(["Include checked bag"], ["Incluir maleta facturada"], ["Inclure un bagage en soute"], ["Aufgabegepäck inklusive"]),
               T(["I've got a suitcase", "add luggage"], ["llevo maleta", "añade equipaje"], ["j'ai une valise", "ajoute un bagage"], ["ich hab einen Koffer dabei", "Gepäck dazu"])),
    ),
    form_title=T(["Change search"], ["Modificar búsqueda"], ["Modifier la recherche"], ["Suche ändern"]),
    submit=B(T(["Search flights", "Update results"], ["Buscar vuelos", "Actualizar resultados"], ["Rechercher des vols", "Mettre à jour"], ["Flüge suchen", "Ergebnisse aktualisieren"]),
             T(["find me flights", "look for planes"], ["búscame vuelos", "mira a ver qué aviones hay"], ["trouve-moi des vols", "cherche des avions"], ["such mir Flüge", "schau nach Fliegern"])),
    absent=T(["the seat map", "the return flight", "the train option", "book the midnight flight", "the business class filter", "the travel insurance box"],
             ["el mapa de asientos", "el vuelo de vuelta", "la opción de tren", "reserva el vuelo de medianoche", "el filtro de clase business", "la casilla del seguro de viaje"],
             ["le plan des sièges", "le vol retour", "l'option train", "réserve le vol de minuit", "le filtre classe affaires", "la case assurance voyage"],
             ["den Sitzplan", "den Rückflug", "die Zug-Option", "buch den Flug um Mitternacht", "den Business-Class-Filter", "das Kästchen für die Reiseversicherung"]),
    sites=[
        dict(brand="SkyHop", layout="cards", actions=["select", "details"], header=["account", "help"], nav=[0, 1, 2, 3],
             form=["origin", "dest", "pax", "direct", "bags"], top=["swap"], top_icons=True, n_items=[8, 10], primary_action="select"),
        dict(brand="Vuela Fácil", layout="table", actions=["fav", "select"], icon_actions=True, header=["menu", "notif", "account"],
             form=["origin", "dest", "direct"], n_items=[7, 9], primary_action="select", pager_icons=True),
    ],
)
