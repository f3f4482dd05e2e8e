"""Kinds: settings, form (sign-up), table (invoices), dashboard, docs."""

from vocab import T, MONTHS, CITIES, FIRST, LAST
from kbase import KINDS, B, LNK, TAB, F, people, price, from_list
from k2 import DELETE, EDIT, MORE, SHARE, DOWNLOAD

# =============================================================================================
DEVICES = T(
    ["the iPhone", "the work laptop", "the iPad", "the Android phone", "the home desktop", "the Chromebook", "the Windows laptop", "the smart TV", "the MacBook"],
    ["el iPhone", "el portátil del trabajo", "el iPad", "el móvil Android", "el ordenador de casa", "el Chromebook", "el portátil Windows", "la smart TV", "el MacBook"],
    ["l'iPhone", "le portable du boulot", "l'iPad", "le téléphone Android", "l'ordi de la maison", "le Chromebook", "le PC portable Windows", "la télé connectée", "le MacBook"],
    ["das iPhone", "den Arbeitslaptop", "das iPad", "das Android-Handy", "den Rechner zu Hause", "das Chromebook", "den Windows-Laptop", "den Smart-TV", "das MacBook"])


def dev_sub(lang, rng):
    return [rng.choice(CITIES[lang]), {"en": "Last active", "es": "Última actividad", "fr": "Dernière activité", "de": "Zuletzt aktiv"}[lang] + f" {rng.randrange(1, 28)}/{rng.randrange(1, 12)}"]


KINDS["settings"] = dict(
    noun=T(("device", "m"), ("dispositivo", "m"), ("appareil", "m"), ("Gerät", "n")),
    pages=["security", "privacy"],
    h1=T(["Security", "Privacy & security"], ["Seguridad", "Privacidad y seguridad"], ["Sécurité", "Confidentialité et sécurité"], ["Sicherheit", "Datenschutz & Sicherheit"]),
    nav=[LNK(T(["Profile"], ["Perfil"], ["Profil"], ["Profil"]), T(["my personal info"], ["mis datos personales"], ["mes infos perso"], ["meine persönlichen Angaben"])),
         LNK(T(["Security"], ["Seguridad"], ["Sécurité"], ["Sicherheit"])),
         LNK(T(["Notifications"], ["Notificaciones"], ["Notifications"], ["Benachrichtigungen"]), T(["what I get pinged about"], ["qué avisos me llegan"], ["ce pour quoi on me prévient"], ["wofür ich Meldungen bekomme"])),
         LNK(T(["Billing"], ["Facturación"], ["Facturation"], ["Abrechnung"]), T(["how I pay", "my payment stuff"], ["cómo pago", "lo de los pagos"], ["comment je paie", "mes paiements"], ["wie ich bezahle", "das mit der Zahlung"])),
         LNK(T(["Connected apps"], ["Aplicaciones conectadas"], ["Applications connectées"], ["Verbundene Apps"])),
         LNK(T(["Language & region"], ["Idioma y región"], ["Langue et région"], ["Sprache & Region"]))],
    tabs=[TAB(T(["General"], ["General"], ["Général"], ["Allgemein"])), TAB(T(["Sign-in"], ["Inicio de sesión"], ["Connexion"], ["Anmeldung"])),
          TAB(T(["Devices"], ["Dispositivos"], ["Appareils"], ["Geräte"]), T(["my gadgets"], ["mis aparatos"], ["mes appareils à moi"], ["meine Geräte da"]))],
    cols=T(["Device", "Location", "Activity"], ["Dispositivo", "Ubicación", "Actividad"], ["Appareil", "Lieu", "Activité"], ["Gerät", "Ort", "Aktivität"]),
    items=lambda lang, rng, n: from_list(DEVICES, lang, rng, n, sub=dev_sub),
    actions=dict(
        signout_dev=B(T(["Sign out", "Log out"], ["Cerrar sesión", "Desconectar"], ["Déconnecter", "Se déconnecter"], ["Abmelden", "Ausloggen"]),
                      verb=T(["log out {x}", "kick {x} out", "sign {x} out"], ["cierra la sesión en {x}", "desconecta {x}", "echa {x}"],
                             ["déconnecte {x}", "vire {x}", "ferme la session sur {x}"], ["meld {x} ab", "wirf {x} raus", "log {x} aus"])),
        remove_dev=DELETE,
    ),
    extras=dict(
        password=B(T(["Change password", "Update password"], ["Cambiar contraseña", "Actualizar contraseña"], ["Changer le mot de passe", "Modifier le mot de passe"], ["Passwort ändern", "Passwort aktualisieren"]),
                   para=T(["the thing to change my password", "set a new login secret", "I want a new code to log in"], ["lo de poner una clave nueva", "quiero otra clave para entrar", "renovar mi clave"],
                          ["le truc pour changer mon code", "mettre un nouveau code secret", "je veux un autre code pour me connecter"], ["das Ding, um mein Kennwort zu ändern", "ein neues Kennwort setzen", "ich will einen neuen Zugangscode"])),
        export=B(T(["Download my data", "Export data"], ["Descargar mis datos", "Exportar datos"], ["Télécharger mes données", "Exporter les données"], ["Meine Daten herunterladen", "Daten exportieren"]), icon="download",
                 para=T(["get a copy of everything they have on me", "take my info with me"], ["una copia de todo lo que tienen de mí", "llevarme mi información"], ["une copie de tout ce qu'ils ont sur moi", "récupérer mes infos"], ["eine Kopie von allem, was die über mich haben", "meine Infos mitnehmen"])),
        deleteacc=B(T(["Delete account", "Close account"], ["Eliminar cuenta", "Darse de baja"], ["Supprimer le compte", "Fermer le compte"], ["Konto löschen", "Konto schließen"]),
                    para=T(["get rid of my profile for good", "I want to leave this service forever"], ["quiero irme para siempre", "borrar mi perfil del todo"], ["je veux partir pour de bon", "effacer mon profil définitivement"], ["mein Profil für immer weg", "ich will hier komplett raus"])),
    ),
    form=dict(
        twofa=F("switch", T(["Two-factor authentication", "2-step verification"], ["Verificación en dos pasos", "Autenticación de dos factores"], ["Double authentification", "Validation en deux étapes"], ["Zwei-Faktor-Authentifizierung", "Bestätigung in zwei Schritten"]),
                T(["the extra code by text when I log in", "make logging in safer"], ["lo del código extra por SMS al entrar", "hacer el acceso más seguro"], ["le code en plus par SMS à la connexion", "sécuriser la connexion"], ["den Zusatzcode per SMS beim Einloggen", "die Anmeldung sicherer machen"]), p_on=0.5),
        alerts=F("checkbox", T(["Email me about new sign-ins", "Login alerts"], ["Avisarme por correo de nuevos accesos", "Alertas de inicio de sesión"], ["M'avertir des nouvelles connexions", "Alertes de connexion"], ["Bei neuen Anmeldungen mailen", "Login-Warnungen"]),
                 T(["tell me when someone logs in", "warn me about strange logins"], ["avísame si alguien entra", "que me avise de accesos raros"], ["préviens-moi si quelqu'un se connecte", "signale-moi les connexions bizarres"], ["sag Bescheid, wenn sich wer einloggt", "warn mich bei komischen Logins"])),
        darkmode=F("switch", T(["Dark mode", "Dark theme"], ["Modo oscuro", "Tema oscuro"], ["Mode sombre", "Thème sombre"], ["Dunkelmodus", "Dunkles Design"]),
                   T(["make the screen black", "the night colours"], ["pon la pantalla negra", "los colores de noche"], ["mets l'écran en noir", "les couleurs de nuit"], ["mach den Bildschirm dunkel", "die Nachtfarben"])),
        lang=F("combobox", T(["Language"], ["Idioma"], ["Langue"], ["Sprache"]),
               T(["change what language it's in", "switch to English"], ["cambia el idioma de la página", "ponlo en otro idioma"], ["change la langue du site", "mets-le dans une autre langue"], ["die Sprache umstellen", "auf eine andere Sprache wechseln"]),
               T(["the language dropdown", "the language menu"], ["el desplegable del idioma", "el menú de idiomas"], ["la liste des langues", "le menu de langue"], ["das Sprach-Dropdown", "das Sprachmenü"]),
               options=T(["English", "Español", "Français", "Deutsch"], ["Español", "English", "Français", "Deutsch"], ["Français", "English", "Español", "Deutsch"], ["Deutsch", "English", "Español", "Français"])),
        tz=F("combobox", T(["Time zone"], ["Zona horaria"], ["Fuseau horaire"], ["Zeitzone"]),
             T(["which clock it uses", "my local time"], ["qué hora usa", "mi hora local"], ["l'heure qu'il utilise", "mon heure locale"], ["welche Uhrzeit es nimmt", "meine Ortszeit"]),
             options=T(["London (GMT)", "New York (EST)", "Madrid (CET)"], ["Madrid (CET)", "Canarias (WET)", "Londres (GMT)"], ["Paris (CET)", "Londres (GMT)", "Montréal (EST)"], ["Berlin (MEZ)", "London (GMT)", "Zürich (MEZ)"])),
        recovery=F("textbox", T(["Recovery email"], ["Correo de recuperación"], ["E-mail de secours"], ["Wiederherstellungs-E-Mail"]),
                   T(["the backup address in case I get locked out"], ["la dirección de repuesto por si me quedo fuera"], ["l'adresse de secours si je suis bloqué"], ["die Ersatzadresse, falls ich nicht mehr reinkomme"]),
                   values=T(["me@example.com"], ["yo@example.es"], ["moi@example.fr"], ["ich@example.de"]), type="email"),
    ),
    form_title=T(["Preferences"], ["Preferencias"], ["Préférences"], ["Einstellungen"]),
    submit=B(T(["Save changes", "Update"], ["Guardar cambios", "Actualizar"], ["Enregistrer", "Mettre à jour"], ["Änderungen speichern", "Aktualisieren"]),
             T(["keep these settings", "apply all that"], ["quédate con estos ajustes", "aplica todo eso"], ["garde ces réglages", "applique tout ça"], ["diese Einstellungen übernehmen", "das alles anwenden"])),
    absent=T(["the Face ID toggle", "the passkey setup", "the parental controls", "sign out the Apple Watch", "the backup codes", "the fingerprint option"],
             ["el interruptor de Face ID", "lo de configurar la llave de acceso", "el control parental", "cierra la sesión del Apple Watch", "los códigos de respaldo", "la opción de huella"],
             ["l'interrupteur Face ID", "la configuration des clés d'accès", "le contrôle parental", "déconnecte l'Apple Watch", "les codes de secours", "l'option empreinte digitale"],
             ["den Face-ID-Schalter", "die Passkey-Einrichtung", "die Kindersicherung", "meld die Apple Watch ab", "die Backup-Codes", "die Fingerabdruck-Option"]),
    sites=[
        dict(brand="MyAccount", layout="list", actions=["signout_dev"], header=["search", "help", "account"], nav=[0, 1, 2, 3, 4, 5],
             top=["password", "export"], n_items=[5, 4], form=["twofa", "alerts", "darkmode", "lang", "tz"], pager=False, form_cancel=True),
        dict(brand="Cuenta Segura", layout="table", actions=["signout_dev", "remove_dev"], icon_actions=True, header=["menu", "notif", "account", "signout"],
             top=["password", "deleteacc"], n_items=[6, 4], form=["recovery", "twofa", "alerts", "lang"], pager=False),
    ],
)

# =============================================================================================
PLANS = T(["the Free plan", "the Plus plan", "the Pro plan", "the Team plan", "the Student plan", "the Family plan"],
          ["el plan Gratis", "el plan Plus", "el plan Pro", "el plan Equipo", "el plan Estudiante", "el plan Familia"],
          ["l'offre Gratuite", "l'offre Plus", "l'offre Pro", "l'offre Équipe", "l'offre Étudiant", "l'offre Famille"],
          ["den Free-Tarif", "den Plus-Tarif", "den Pro-Tarif", "den Team-Tarif", "den Studierenden-Tarif", "den Familien-Tarif"])


def plan_items(lang, rng, n):
    out = from_list(PLANS, lang, rng, n, sub=lambda l, r: [price(l, r, 0, 30) + {"en": "/month", "es": "/mes", "fr": "/mois", "de": "/Monat"}[l]])
    for it in out:
        it["b"] = it["title"].split()[-1] if lang in ("en", "de") else it["title"].split()[-1]
    return out


SIGNIN = lambda prov: B(T([f"Sign in with {prov}", f"Continue with {prov}"], [f"Iniciar sesión con {prov}", f"Continuar con {prov}"],
                          [f"Se connecter avec {prov}", f"Continuer avec {prov}"], [f"Mit {prov} anmelden", f"Weiter mit {prov}"]),
                        T([f"use my {prov} account", f"log in through {prov}"], [f"entrar con mi cuenta de {prov}", f"usar {prov} para entrar"],
                          [f"passer par mon compte {prov}", f"me connecter via {prov}"], [f"über mein {prov}-Konto rein", f"per {prov} einloggen"]))

KINDS["form"] = dict(
    noun=T(("plan", "m"), ("plan", "m"), ("offre", "f"), ("Tarif", "m")),
    pages=["signup", "signup-plans"],
    h1=T(["Create your account", "Sign up"], ["Crea tu cuenta", "Regístrate"], ["Créez votre compte", "Inscription"], ["Konto erstellen", "Registrieren"]),
    nav=[LNK(T(["Features"], ["Funciones"], ["Fonctionnalités"], ["Funktionen"])), LNK(T(["Pricing"], ["Precios"], ["Tarifs"], ["Preise"]), T(["how much it costs"], ["cuánto cuesta"], ["combien ça coûte"], ["was das kostet"])),
         LNK(T(["Log in", "Sign in"], ["Entrar", "Iniciar sesión"], ["Connexion", "Se connecter"], ["Anmelden", "Einloggen"]), T(["I already have an account"], ["ya tengo cuenta"], ["j'ai déjà un compte"], ["ich hab schon ein Konto"])),
         LNK(T(["Customers"], ["Clientes"], ["Clients"], ["Kunden"])), LNK(T(["Resources"], ["Recursos"], ["Ressources"], ["Ressourcen"]))],
    tabs=[TAB(T(["Monthly"], ["Mensual"], ["Mensuel"], ["Monatlich"])), TAB(T(["Yearly"], ["Anual"], ["Annuel"], ["Jährlich"]), T(["pay once a year"], ["pagar una vez al año"], ["payer une fois par an"], ["einmal im Jahr zahlen"]))],
    cols=T(["Plan", "Price"], ["Plan", "Precio"], ["Offre", "Prix"], ["Tarif", "Preis"]),
    items=plan_items,
    actions=dict(choose=B(T(["Choose plan", "Select"], ["Elegir plan", "Seleccionar"], ["Choisir cette offre", "Sélectionner"], ["Tarif wählen", "Auswählen"]),
                          verb=T(["go with {x}", "I want {x}", "sign me up for {x}", "pick {x}"], ["me quedo con {x}", "quiero {x}", "apúntame a {x}", "elige {x}"],
                                 ["je prends {x}", "choisis {x}", "inscris-moi à {x}", "on part sur {x}"], ["ich nehm {x}", "wähl {x}", "meld mich für {x} an", "nimm {x}"]))),
    extras=dict(google=SIGNIN("Google"), microsoft=SIGNIN("Microsoft"),
                showpw=B(T(["Show password"], ["Mostrar contraseña"], ["Afficher le mot de passe"], ["Passwort anzeigen"]), icon="eye",
                         para=T(["let me see what I typed", "unhide the password"], ["déjame ver lo que he escrito", "que se vea la clave"], ["montre-moi ce que j'ai tapé", "faire apparaître le mot de passe"], ["zeig mir, was ich getippt hab", "das Kennwort sichtbar machen"]))),
    form=dict(
        first=F("textbox", T(["First name"], ["Nombre"], ["Prénom"], ["Vorname"]), T(["what my parents call me"], ["cómo me llamo de nombre"], ["mon petit nom à moi"], ["wie ich mit Vornamen heiße"]),
                T(["the first name box"], ["la casilla del nombre"], ["la case du prénom"], ["das Vornamenfeld"]), values=FIRST),
        last=F("textbox", T(["Last name", "Surname"], ["Apellidos"], ["Nom"], ["Nachname"]), T(["my family name"], ["mi apellido"], ["mon nom de famille"], ["meinen Familiennamen"]), values=LAST),
        email=F("textbox", T(["Email", "Email address"], ["Correo electrónico", "Email"], ["Adresse e-mail", "E-mail"], ["E-Mail-Adresse", "E-Mail"]),
                T(["where they can write to me", "my address for messages"], ["dónde me pueden escribir", "mi dirección para los mensajes"], ["où ils peuvent m'écrire", "mon adresse pour les messages"], ["wo sie mir schreiben können", "meine Adresse für Nachrichten"]),
                T(["the email field", "the e-mail box"], ["el campo del correo", "la casilla del email"], ["le champ e-mail", "la case de l'adresse mail"], ["das E-Mail-Feld", "das Mailfeld"]), type="email"),
        password=F("textbox", T(["Password"], ["Contraseña"], ["Mot de passe"], ["Passwort"]), T(["my secret code", "the login secret"], ["mi clave secreta", "la clave para entrar"], ["mon code secret", "le sésame pour entrer"], ["mein geheimes Kennwort", "den Geheimcode"]),
                   T(["the password box"], ["la casilla de la clave"], ["le champ du code"], ["das Kennwortfeld"]), type="password"),
        country=F("combobox", T(["Country"], ["País"], ["Pays"], ["Land"]), T(["where I live", "my nation"], ["dónde vivo", "de qué país soy"], ["où j'habite", "mon pays à moi"], ["wo ich wohne", "mein Heimatland"]),
                  T(["the country dropdown", "the country picker"], ["el desplegable de países", "el selector del país"], ["la liste des pays", "le menu pays"], ["das Länder-Dropdown", "die Länderauswahl"]),
                  options=T(["United Kingdom", "Ireland", "United States", "Canada"], ["España", "México", "Argentina", "Colombia"], ["France", "Belgique", "Suisse", "Canada"], ["Deutschland", "Österreich", "Schweiz", "Luxemburg"])),
        newsletter=F("checkbox", T(["Send me the newsletter", "Keep me updated by email"], ["Quiero recibir el boletín", "Enviadme novedades por correo"], ["Recevoir la newsletter", "Me tenir informé par e-mail"], ["Newsletter abonnieren", "Per E-Mail auf dem Laufenden halten"]),
                     T(["subscribe me", "sign me up for their mails", "I want their news"], ["suscríbeme", "apúntame a sus correos", "quiero sus novedades"], ["abonne-moi", "inscris-moi à leurs mails", "je veux leurs nouvelles"], ["abonnier das für mich", "trag mich für deren Mails ein", "ich will deren Neuigkeiten"])),
        terms=F("checkbox", T(["I agree to the terms and conditions", "I accept the terms"], ["Acepto los términos y condiciones", "Acepto las condiciones"], ["J'accepte les conditions générales", "J'accepte les CGU"], ["Ich stimme den AGB zu", "Ich akzeptiere die Bedingungen"]),
                T(["say yes to the legal bit", "agree to the rules"], ["acepta lo legal", "dile que sí a las normas"], ["accepte le blabla juridique", "dis oui au règlement"], ["dem Rechtlichen zustimmen", "den Regeln zustimmen"]), p_on=0.3),
    ),
    form_title=T(["Your details"], ["Tus datos"], ["Vos informations"], ["Deine Angaben"]),
    submit=B(T(["Create account", "Sign up"], ["Crear cuenta", "Registrarme"], ["Créer mon compte", "S'inscrire"], ["Konto erstellen", "Registrieren"]),
             T(["make my account", "finish signing up", "register me"], ["hazme la cuenta", "termina el registro", "regístrame ya"], ["fais-moi un compte", "termine l'inscription", "inscris-moi"], ["mach mir ein Konto", "die Anmeldung abschließen", "registrier mich"])),
    absent=T(["the Apple sign-in button", "sign in with Facebook", "the forgot password link", "the phone number field", "the captcha", "the date of birth field"],
             ["el botón de iniciar sesión con Apple", "entrar con Facebook", "el enlace de he olvidado mi contraseña", "el campo del teléfono", "el captcha", "el campo de fecha de nacimiento"],
             ["le bouton de connexion avec Apple", "se connecter avec Facebook", "le lien mot de passe oublié", "le champ du numéro de téléphone", "le captcha", "le champ date de naissance"],
             ["den Apple-Login-Button", "mit Facebook anmelden", "den Passwort-vergessen-Link", "das Feld für die Telefonnummer", "das Captcha", "das Geburtsdatum-Feld"]),
    sites=[
        dict(brand="Nimbus", layout="cards", actions=["choose"], header=[], top=["google", "microsoft"], n_items=[4, 3], pager=False,
             form=["first", "last", "email", "password", "country", "newsletter", "terms"], p_submit_disabled=0.5),
        dict(brand="Pluma", layout="list", actions=["choose"], header=["help"], top=["google", "microsoft", "showpw"], top_icons=True, n_items=[3, 4], pager=False,
             form=["email", "password", "country", "terms", "newsletter"], p_submit_disabled=0.5),
    ],
)

# =============================================================================================
def invoice_items(lang, rng, n):
    months = rng.sample(range(11), min(n, 11))  # never December: a "none" row asks for it
    ps = people(lang, rng, n)
    out = []
    for i, (m, (f, l)) in enumerate(zip(months, ps)):
        mn = MONTHS[lang][m]
        no = f"INV-{2040 + rng.randrange(900)}"
        x = {"en": f"the {mn} invoice", "es": f"la factura de {mn}", "fr": f"la facture de {mn}", "de": f"die {mn}-Rechnung"}[lang]
        st = rng.choice({"en": ["Paid", "Overdue", "Draft"], "es": ["Pagada", "Vencida", "Borrador"], "fr": ["Payée", "En retard", "Brouillon"], "de": ["Bezahlt", "Überfällig", "Entwurf"]}[lang])
        out.append(dict(title=no, x=x, b=no, sub=[f"{f} {l}", f"{rng.randrange(1, 28)} {mn}", price(lang, rng, 80, 4000), st]))
    return out


KINDS["table"] = dict(
    noun=T(("invoice", "f"), ("factura", "f"), ("facture", "f"), ("Rechnung", "f")),
    pages=["invoices-1", "invoices-2"],
    h1=T(["Invoices", "Billing history"], ["Facturas", "Historial de facturación"], ["Factures", "Historique de facturation"], ["Rechnungen", "Rechnungsverlauf"]),
    nav=[LNK(T(["Overview"], ["Resumen"], ["Vue d'ensemble"], ["Übersicht"])), LNK(T(["Invoices"], ["Facturas"], ["Factures"], ["Rechnungen"])),
         LNK(T(["Customers", "Clients"], ["Clientes"], ["Clients"], ["Kunden"]), T(["the people who pay me"], ["la gente que me paga"], ["ceux qui me paient"], ["die Leute, die mich bezahlen"])),
         LNK(T(["Expenses"], ["Gastos"], ["Dépenses"], ["Ausgaben"]), T(["what I spent"], ["lo que he gastado"], ["ce que j'ai dépensé"], ["was ich ausgegeben hab"])),
         LNK(T(["Reports"], ["Informes"], ["Rapports"], ["Berichte"])), LNK(T(["Taxes"], ["Impuestos"], ["Impôts"], ["Steuern"]))],
    tabs=[TAB(T(["All"], ["Todas"], ["Toutes"], ["Alle"])), TAB(T(["Unpaid"], ["Pendientes"], ["Impayées"], ["Offen"]), T(["the ones nobody paid yet"], ["las que no han pagado"], ["celles qui ne sont pas réglées"], ["die noch keiner bezahlt hat"])),
          TAB(T(["Paid"], ["Pagadas"], ["Payées"], ["Bezahlt"])), TAB(T(["Drafts"], ["Borradores"], ["Brouillons"], ["Entwürfe"]))],
    cols=T(["Invoice", "Customer", "Date", "Amount", "Status"], ["Factura", "Cliente", "Fecha", "Importe", "Estado"], ["Facture", "Client", "Date", "Montant", "Statut"], ["Rechnung", "Kunde", "Datum", "Betrag", "Status"]),
    items=invoice_items,
    actions=dict(download=DOWNLOAD, edit=EDIT, delete=DELETE,
                 send=B(T(["Send", "Email invoice"], ["Enviar", "Enviar por correo"], ["Envoyer", "Envoyer par e-mail"], ["Senden", "Per Mail senden"]), icon="plane",
                        verb=T(["send {x}", "email {x} to the customer", "mail out {x}"], ["manda {x}", "envía {x} al cliente", "mándale {x} por correo"],
                               ["envoie {x}", "expédie {x} au client", "envoie {x} par mail"], ["schick {x}", "{x} an den Kunden mailen", "versende {x}"]))),
    extras=dict(
        newinv=B(T(["New invoice", "Create invoice"], ["Nueva factura", "Crear factura"], ["Nouvelle facture", "Créer une facture"], ["Neue Rechnung", "Rechnung erstellen"]), icon="plus",
                 para=T(["bill someone", "start a fresh bill"], ["cobrarle a alguien", "hacer una factura desde cero"], ["facturer quelqu'un", "faire une nouvelle note"], ["jemandem was in Rechnung stellen", "eine frische Rechnung anfangen"])),
        exportcsv=B(T(["Export CSV", "Export"], ["Exportar CSV", "Exportar"], ["Exporter en CSV", "Exporter"], ["CSV exportieren", "Exportieren"]), icon="download",
                    para=T(["get it all as a spreadsheet", "dump the table to Excel"], ["sácalo todo en una hoja de cálculo", "pásalo a Excel"], ["sors tout en tableur", "mets le tableau dans Excel"], ["das alles als Tabelle rausholen", "ab nach Excel damit"])),
        print=B(T(["Print"], ["Imprimir"], ["Imprimer"], ["Drucken"]), icon="printer",
                para=T(["put it on paper", "a paper copy"], ["sacarlo en papel", "una copia en papel"], ["le sortir sur papier", "une copie papier"], ["auf Papier bringen", "einen Ausdruck"])),
    ),
    form=dict(
        status=F("combobox", T(["Status"], ["Estado"], ["Statut"], ["Status"]), T(["only show some kinds"], ["ver solo un tipo"], ["n'afficher qu'un type"], ["nur eine Sorte zeigen"]),
                 T(["the status filter"], ["el filtro de estado"], ["le filtre de statut"], ["den Statusfilter"]),
                 options=T(["Any", "Paid", "Overdue", "Draft"], ["Cualquiera", "Pagada", "Vencida", "Borrador"], ["Tous", "Payée", "En retard", "Brouillon"], ["Alle", "Bezahlt", "Überfällig", "Entwurf"])),
        customer=F("textbox", T(["Customer"], ["Cliente"], ["Client"], ["Kunde"]), T(["filter by who it's for"], ["filtrar por a quién va"], ["filtrer par destinataire"], ["nach Empfänger filtern"]),
                   values=FIRST),
        overdue=F("checkbox", T(["Overdue only"], ["Solo vencidas"], ["En retard uniquement"], ["Nur überfällige"]), T(["just the late ones"], ["solo las que van tarde"], ["juste celles en retard"], ["nur die verspäteten"])),
    ),
    form_title=T(["Filter"], ["Filtrar"], ["Filtrer"], ["Filtern"]),
    submit=B(T(["Apply", "Filter"], ["Aplicar", "Filtrar"], ["Appliquer", "Filtrer"], ["Anwenden", "Filtern"]), T(["narrow the list down"], ["acota la lista"], ["réduis la liste"], ["die Liste eingrenzen"])),
    absent=T(["the credit note button", "the recurring invoices tab", "send the December invoice to the customer", "the column settings", "the refund button", "the VAT number field"],
             ["el botón de abono", "la pestaña de facturas recurrentes", "manda la factura de diciembre al cliente", "la configuración de columnas", "el botón de reembolso", "el campo del NIF"],
             ["le bouton avoir", "l'onglet factures récurrentes", "envoie la facture de décembre au client", "les réglages des colonnes", "le bouton de remboursement", "le champ numéro de TVA"],
             ["den Gutschrift-Knopf", "den Reiter für Serienrechnungen", "schick die Dezember-Rechnung an den Kunden", "die Spalteneinstellungen", "den Erstatten-Button", "das Feld für die USt-IdNr."]),
    sites=[
        dict(brand="Ledgerly", layout="table", actions=["download", "send"], icon_actions=True, label_item=True, header=["search", "notif", "account"],
             top=["newinv", "exportcsv"], n_items=[8, 6], form=["status", "overdue"], select_rows=True),
        dict(brand="Factura Pro", layout="table", actions=["edit", "delete"], icon_actions=False, header=["menu", "help", "account"],
             top=["newinv", "print"], top_icons=True, n_items=[7, 8], form=["customer", "status", "overdue"]),
    ],
)

# =============================================================================================
WIDGETS = T(["the revenue chart", "the active users card", "the conversion rate", "the churn chart", "the traffic sources", "the top pages table",
             "the signups graph", "the average order value", "the support tickets card", "the bounce rate"],
            ["el gráfico de ingresos", "la tarjeta de usuarios activos", "la tasa de conversión", "el gráfico de bajas", "las fuentes de tráfico", "la tabla de páginas más vistas",
             "el gráfico de registros", "el ticket medio", "la tarjeta de incidencias", "la tasa de rebote"],
            ["le graphique du chiffre d'affaires", "la carte des utilisateurs actifs", "le taux de conversion", "le graphique de désabonnement", "les sources de trafic", "le tableau des pages les plus vues",
             "le graphique des inscriptions", "le panier moyen", "la carte des tickets support", "le taux de rebond"],
            ["das Umsatzdiagramm", "die Karte mit den aktiven Nutzern", "die Conversion-Rate", "das Kündigungsdiagramm", "die Traffic-Quellen", "die Tabelle mit den Top-Seiten",
             "die Anmeldekurve", "den durchschnittlichen Bestellwert", "die Support-Ticket-Karte", "die Absprungrate"])


def widget_sub(lang, rng):
    v = rng.randrange(2, 95)
    return [f"{'+' if rng.random() < 0.6 else '−'}{v}%"]


KINDS["dashboard"] = dict(
    noun=T(("chart", "m"), ("panel", "m"), ("widget", "m"), ("Widget", "n")),
    pages=["overview", "sales"],
    h1=T(["Overview", "Sales"], ["Resumen", "Ventas"], ["Vue d'ensemble", "Ventes"], ["Übersicht", "Vertrieb"]),
    nav=[LNK(T(["Dashboard"], ["Panel"], ["Tableau de bord"], ["Dashboard"])), LNK(T(["Analytics"], ["Analítica"], ["Statistiques"], ["Analysen"]), T(["the numbers and stats"], ["los números y estadísticas"], ["les chiffres"], ["die Zahlen und Statistiken"])),
         LNK(T(["Customers"], ["Clientes"], ["Clients"], ["Kunden"])), LNK(T(["Orders"], ["Pedidos"], ["Commandes"], ["Bestellungen"]), T(["what people bought"], ["lo que ha comprado la gente"], ["ce que les gens ont acheté"], ["was die Leute bestellt haben"])),
         LNK(T(["Integrations"], ["Integraciones"], ["Intégrations"], ["Integrationen"])), LNK(T(["Team"], ["Equipo"], ["Équipe"], ["Team"]))],
    tabs=[TAB(T(["Last 7 days"], ["Últimos 7 días"], ["7 derniers jours"], ["Letzte 7 Tage"]), T(["this past week"], ["esta última semana"], ["la semaine passée"], ["die letzte Woche"])),
          TAB(T(["Last 30 days"], ["Últimos 30 días"], ["30 derniers jours"], ["Letzte 30 Tage"]), T(["the past month"], ["el último mes"], ["le mois dernier"], ["den letzten Monat"])),
          TAB(T(["This year"], ["Este año"], ["Cette année"], ["Dieses Jahr"]))],
    cols=T(["Widget", "Change"], ["Panel", "Variación"], ["Widget", "Évolution"], ["Widget", "Veränderung"]),
    items=lambda lang, rng, n: from_list(WIDGETS, lang, rng, n, sub=widget_sub),
    actions=dict(
        expand=B(T(["Expand", "Full screen"], ["Ampliar", "Pantalla completa"], ["Agrandir", "Plein écran"], ["Vergrößern", "Vollbild"]), icon="expand",
                 verb=T(["make {x} bigger", "blow up {x}", "show {x} full screen"], ["amplía {x}", "pon {x} en grande", "{x} a pantalla completa"],
                        ["agrandis {x}", "mets {x} en grand", "{x} en plein écran"], ["mach {x} größer", "zeig {x} im Vollbild", "{x} vergrößern"])),
        more=MORE, download=DOWNLOAD),
    extras=dict(
        addwidget=B(T(["Add widget"], ["Añadir panel"], ["Ajouter un widget"], ["Widget hinzufügen"]), icon="plus",
                    para=T(["put another chart on here", "one more graph"], ["mete otro gráfico", "un gráfico más"], ["rajoute un graphique", "encore un graphe"], ["noch ein Diagramm drauf", "ein weiteres Schaubild"])),
        share=B(T(["Share dashboard"], ["Compartir panel"], ["Partager le tableau de bord"], ["Dashboard teilen"]), icon="share",
                para=T(["send this view to my boss", "let others see this"], ["mándale esto a mi jefe", "que lo vean otros"], ["envoie ça à mon chef", "montrer ça aux autres"], ["schick das meinem Chef", "andere das sehen lassen"])),
        refresh=B(T(["Refresh data"], ["Actualizar datos"], ["Actualiser les données"], ["Daten aktualisieren"]), icon="refresh",
                  para=T(["get the latest numbers", "reload the figures"], ["trae los últimos datos", "recarga las cifras"], ["récupère les derniers chiffres", "recharge les données"], ["hol die neuesten Zahlen", "die Werte neu laden"])),
    ),
    form=dict(
        region=F("combobox", T(["Region"], ["Región"], ["Région"], ["Region"]), T(["which part of the world"], ["qué zona del mundo"], ["quelle partie du monde"], ["welcher Teil der Welt"]),
                 T(["the region dropdown"], ["el desplegable de región"], ["la liste des régions"], ["das Regions-Dropdown"]),
                 options=T(["All regions", "Europe", "North America", "Asia"], ["Todas", "Europa", "Latinoamérica", "Asia"], ["Toutes", "Europe", "Amérique du Nord", "Asie"], ["Alle Regionen", "Europa", "Nordamerika", "Asien"])),
        compare=F("checkbox", T(["Compare to previous period"], ["Comparar con el periodo anterior"], ["Comparer à la période précédente"], ["Mit Vorperiode vergleichen"]),
                  T(["side by side with last time", "versus before"], ["frente a la vez anterior", "compararlo con antes"], ["par rapport à avant", "face à la période d'avant"], ["im Vergleich zu vorher", "gegen letztes Mal"])),
        live=F("switch", T(["Live updates", "Auto-refresh"], ["Actualización en directo", "Autoactualizar"], ["Mise à jour en direct", "Actualisation auto"], ["Live-Aktualisierung", "Automatisch aktualisieren"]),
               T(["keep the numbers ticking", "update on its own"], ["que se actualice solo", "cifras en tiempo real"], ["que ça se mette à jour tout seul", "chiffres en temps réel"], ["von selbst aktualisieren", "Zahlen in Echtzeit"])),
    ),
    form_title=T(["Display"], ["Visualización"], ["Affichage"], ["Anzeige"]),
    submit=B(T(["Apply", "Update view"], ["Aplicar", "Actualizar vista"], ["Appliquer", "Mettre à jour la vue"], ["Anwenden", "Ansicht aktualisieren"]), T(["redraw with these settings"], ["vuelve a pintarlo con esto"], ["redessine avec ces réglages"], ["mit diesen Einstellungen neu zeichnen"])),
    absent=T(["the forecast chart", "the heat map", "expand the profit margin card", "the date picker", "the pie chart", "the alerts setup"],
             ["el gráfico de previsión", "el mapa de calor", "amplía la tarjeta del margen", "el selector de fechas", "el gráfico de tarta", "la configuración de alertas"],
             ["le graphique de prévision", "la carte de chaleur", "agrandis la carte de la marge", "le sélecteur de dates", "le camembert", "la config des alertes"],
             ["das Prognosediagramm", "die Heatmap", "vergrößere die Margen-Karte", "die Datumsauswahl", "das Tortendiagramm", "die Alarm-Einstellungen"]),
    sites=[
        dict(brand="Metricly", layout="cards", actions=["expand", "more"], icon_actions=True, header=["menu", "search", "notif", "settings", "account"],
             top=["addwidget", "share", "refresh"], top_icons=True, n_items=[8, 10], form=["region", "compare", "live"], pager=False),
        dict(brand="Cuadro", layout="table", actions=["download", "more"], icon_actions=True, label_item=True, header=["search", "help", "account", "signout"],
             top=["refresh", "addwidget"], n_items=[6, 7], form=["region", "compare"], pager=False),
    ],
)

# =============================================================================================
DOCPAGES = T(["the installation guide", "the quick start", "the configuration page", "the API reference", "the troubleshooting page", "the migration guide",
              "the authentication page", "the deployment guide", "the FAQ", "the changelog", "the security page", "the plugins page"],
             ["la guía de instalación", "el inicio rápido", "la página de configuración", "la referencia de la API", "la página de solución de problemas", "la guía de migración",
              "la página de autenticación", "la guía de despliegue", "las preguntas frecuentes", "el registro de cambios", "la página de seguridad", "la página de plugins"],
             ["le guide d'installation", "le démarrage rapide", "la page de configuration", "la référence de l'API", "la page de dépannage", "le guide de migration",
              "la page d'authentification", "le guide de déploiement", "la FAQ", "le journal des modifications", "la page sécurité", "la page des extensions"],
             ["die Installationsanleitung", "den Schnellstart", "die Konfigurationsseite", "die API-Referenz", "die Seite zur Fehlerbehebung", "den Migrationsleitfaden",
              "die Seite zur Authentifizierung", "die Deployment-Anleitung", "die FAQ", "das Änderungsprotokoll", "die Sicherheitsseite", "die Plugin-Seite"])


KINDS["docs"] = dict(
    noun=T(("page", "f"), ("página", "f"), ("page", "f"), ("Seite", "f")),
    pages=["guide-1", "guide-2"],
    h1=T(["Documentation", "Guides"], ["Documentación", "Guías"], ["Documentation", "Guides"], ["Dokumentation", "Anleitungen"]),
    nav=[LNK(T(["Docs"], ["Documentación"], ["Docs"], ["Doku"])), LNK(T(["Tutorials"], ["Tutoriales"], ["Tutoriels"], ["Tutorials"]), T(["the step by step lessons"], ["las lecciones paso a paso"], ["les leçons pas à pas"], ["die Schritt-für-Schritt-Lektionen"])),
         LNK(T(["Community"], ["Comunidad"], ["Communauté"], ["Community"]), T(["the forum with other users"], ["el foro con otros usuarios"], ["le forum des utilisateurs"], ["das Forum mit anderen Nutzern"])),
         LNK(T(["GitHub"], ["GitHub"], ["GitHub"], ["GitHub"]), T(["the source code"], ["el código fuente"], ["le code source"], ["den Quellcode"])),
         LNK(T(["Releases"], ["Versiones"], ["Versions"], ["Releases"])), LNK(T(["Examples"], ["Ejemplos"], ["Exemples"], ["Beispiele"]))],
    tabs=[TAB(T(["npm"], ["npm"], ["npm"], ["npm"])), TAB(T(["yarn"], ["yarn"], ["yarn"], ["yarn"])), TAB(T(["pnpm"], ["pnpm"], ["pnpm"], ["pnpm"]))],
    cols=T(["Page", "Updated"], ["Página", "Actualizada"], ["Page", "Mise à jour"], ["Seite", "Aktualisiert"]),
    items=lambda lang, rng, n: from_list(DOCPAGES, lang, rng, n, sub=lambda l, r: [f"v{r.randrange(1, 5)}.{r.randrange(10)}"]),
    actions=dict(
        bookmark=B(T(["Bookmark", "Save page"], ["Guardar", "Marcar página"], ["Ajouter aux favoris", "Enregistrer la page"], ["Lesezeichen", "Seite merken"]), icon="bookmark",
                   verb=T(["bookmark {x}", "save {x} for later", "remember {x}"], ["guarda {x}", "marca {x} para luego", "apúntame {x}"],
                          ["mets {x} en favori", "garde {x} pour plus tard", "enregistre {x}"], ["setz ein Lesezeichen auf {x}", "merk dir {x}", "speicher {x}"])),
        copylink=B(T(["Copy link"], ["Copiar enlace"], ["Copier le lien"], ["Link kopieren"]), icon="paperclip",
                   verb=T(["copy the link to {x}", "grab the URL of {x}"], ["copia el enlace de {x}", "pilla la dirección de {x}"], ["copie le lien vers {x}", "prends l'URL de {x}"], ["kopier den Link für {x}", "hol die URL für {x}"])),
    ),
    extras=dict(
        copycode=B(T(["Copy code", "Copy"], ["Copiar código", "Copiar"], ["Copier le code", "Copier"], ["Code kopieren", "Kopieren"]), icon="paperclip",
                   para=T(["grab that snippet", "put the command on my clipboard"], ["pilla ese trozo de código", "cópiame el comando"], ["récupère ce bout de code", "mets la commande dans le presse-papier"], ["den Schnipsel holen", "den Befehl in die Zwischenablage"])),
        editgh=B(T(["Edit this page", "Suggest changes"], ["Editar esta página", "Proponer cambios"], ["Modifier cette page", "Proposer une modification"], ["Seite bearbeiten", "Änderung vorschlagen"]), icon="pencil",
                 para=T(["fix a typo here", "improve this article"], ["corregir una errata aquí", "mejorar este artículo"], ["corriger une coquille ici", "améliorer cet article"], ["hier einen Tippfehler korrigieren", "den Artikel verbessern"])),
        yes=B(T(["Yes"], ["Sí"], ["Oui"], ["Ja"]), para=T(["this page helped", "thumbs up"], ["me ha servido", "pulgar arriba"], ["ça m'a aidé", "pouce en l'air"], ["die Seite hat geholfen", "Daumen hoch"])),
        no=B(T(["No"], ["No"], ["Non"], ["Nein"]), para=T(["this didn't help me", "thumbs down"], ["no me ha servido", "pulgar abajo"], ["ça ne m'a pas aidé", "pouce vers le bas"], ["das hat nicht geholfen", "Daumen runter"])),
    ),
    form=dict(
        version=F("combobox", T(["Version"], ["Versión"], ["Version"], ["Version"]), T(["docs for an older release"], ["la doc de una versión antigua"], ["la doc d'une ancienne version"], ["die Doku für ein älteres Release"]),
                  T(["the version picker"], ["el selector de versión"], ["le sélecteur de version"], ["die Versionsauswahl"]), options=T(["v4 (latest)", "v3", "v2"], ["v4 (última)", "v3", "v2"], ["v4 (dernière)", "v3", "v2"], ["v4 (aktuell)", "v3", "v2"])),
        feedback=F("textbox", T(["Comments", "Your feedback"], ["Comentarios", "Tu opinión"], ["Commentaires", "Votre avis"], ["Kommentar", "Dein Feedback"]),
                   T(["where I tell them what's wrong", "write my opinion"], ["donde les digo qué falla", "escribir mi opinión"], ["là où je dis ce qui cloche", "donner mon avis"], ["wo ich sage, was nicht stimmt", "meine Meinung schreiben"]), multiline=True),
        contactme=F("checkbox", T(["You can contact me"], ["Podéis contactarme"], ["Vous pouvez me contacter"], ["Ihr dürft mich kontaktieren"]), T(["they may write back to me"], ["que me respondan"], ["ils peuvent me répondre"], ["die dürfen mir antworten"])),
    ),
    form_title=T(["Was this page helpful?"], ["¿Te ha resultado útil?"], ["Cette page vous a-t-elle aidé ?"], ["War diese Seite hilfreich?"]),
    submit=B(T(["Send feedback", "Submit"], ["Enviar opinión", "Enviar"], ["Envoyer l'avis", "Envoyer"], ["Feedback senden", "Absenden"]), T(["hand in my comment"], ["manda mi comentario"], ["transmets mon commentaire"], ["meinen Kommentar abschicken"])),
    absent=T(["the dark theme toggle", "the PDF download", "bookmark the glossary", "the video tutorial", "the language switcher", "the Discord link"],
             ["el interruptor del tema oscuro", "la descarga en PDF", "guarda el glosario", "el tutorial en vídeo", "el selector de idioma", "el enlace a Discord"],
             ["le bouton thème sombre", "le téléchargement en PDF", "mets le glossaire en favori", "le tutoriel vidéo", "le sélecteur de langue", "le lien Discord"],
             ["den Dark-Mode-Schalter", "den PDF-Download", "setz ein Lesezeichen aufs Glossar", "das Video-Tutorial", "den Sprachumschalter", "den Discord-Link"]),
    sites=[
        dict(brand="Tern Docs", layout="list", actions=["bookmark"], icon_actions=True, header=["menu", "search"], top=["copycode", "editgh", "yes", "no"],
             n_items=[10, 12], form=["feedback", "contactme"], pager=False),
        dict(brand="Manual Nube", layout="list", actions=["bookmark", "copylink"], icon_actions=True, label_item=True, header=["search", "help"], tabs=False,
             top=["editgh", "copycode"], top_icons=True, n_items=[8, 9], form=["version", "feedback"], search_btn_icon=True),
    ],
)
