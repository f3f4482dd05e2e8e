//! The few words the learned ranker reads by rule, in English, Spanish, French and German:
//! positions ("the second", "la última", "l'avant-dernier", "der dritte") and states ("the
//! unchecked one", "la casilla marcada", "l'onglet sélectionné", "das deaktivierte Feld").
//!
//! These are facts a snapshot gives and an embedding cannot count (which button is the third
//! of its kind, which box is ticked); everything else — names, paraphrases, rows, icons — the
//! ranker reads through the sentence embedding. Words are matched after [`fold`] (lower case,
//! accents off), by prefix where the language inflects ("zweit" for zweite/zweiten/zweiter,
//! "segund" for segundo/segunda).

/// A position among like elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The n-th from the start (1-based).
    Nth(usize),
    /// The n-th from the end (1 = the last).
    FromEnd(usize),
}

/// A state a description can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Ticked (checkbox, radio, switch).
    Checked,
    /// Greyed out.
    Disabled,
    /// The current tab or option.
    Selected,
    /// Open (a menu, a section).
    Expanded,
}

/// A state asked for, or its opposite ("unchecked").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    /// The state.
    pub state: State,
    /// `false` when the description asks for its absence.
    pub holds: bool,
}

/// Lower case with accents and other combining marks taken off (`é` → `e`, `ü` → `u`,
/// `ß` → `ss`).
pub fn fold(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let mut out = String::with_capacity(text.len());
    for c in text.nfd() {
        if unicode_normalization::char::is_combining_mark(c) {
            continue;
        }
        if c == 'ß' {
            out.push_str("ss");
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The words of a folded text: runs of letters and digits (an apostrophe splits, as in
/// "l'onglet"; a hyphen splits, as in "avant-dernier", which [`position`] reads as a pair).
pub fn words(folded: &str) -> Vec<&str> {
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Ordinal stems: (prefix, n). A word matches when it starts with the prefix and is at most
/// two letters longer (inflection), so "tercera" and "dritten" match but "secondary" does not.
const ORDINALS: &[(&str, usize)] = &[
    // English
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
    // Spanish
    ("primer", 1),
    ("segund", 2),
    ("tercer", 3),
    ("cuart", 4),
    ("quint", 5),
    ("sext", 6),
    ("septim", 7),
    ("octav", 8),
    ("noven", 9),
    ("decim", 10),
    // French
    ("premier", 1),
    ("premiere", 1),
    ("deuxieme", 2),
    ("seconde", 2),
    ("troisieme", 3),
    ("quatrieme", 4),
    ("cinquieme", 5),
    ("sixieme", 6),
    ("septieme", 7),
    ("huitieme", 8),
    ("neuvieme", 9),
    ("dixieme", 10),
    // German
    ("erst", 1),
    ("zweit", 2),
    ("dritt", 3),
    ("viert", 4),
    ("funft", 5),
    ("sechst", 6),
    ("siebt", 7),
    ("acht", 8),
    ("neunt", 9),
    ("zehnt", 10),
];

/// Words for the last one.
const LAST: &[&str] = &[
    "last", "ultim", "dernier", "derniere", "letzt", "final", "bottom",
];

/// Words for the one before the last.
const PENULTIMATE: &[&str] = &["penultimate", "penultim", "vorletzt"];

fn stem_match(word: &str, stem: &str, slack: usize) -> bool {
    word.starts_with(stem) && word.len() <= stem.len() + slack
}

/// A numeral ordinal: "2nd", "3rd", "2º", "2ª", "2e", "2eme", "2.", or a bare "2" after
/// "number"/"nummer"/"numero"/"no".
fn numeral(word: &str, next_is_dot: bool) -> Option<usize> {
    let digits: String = word.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > 2 {
        return None;
    }
    let n: usize = digits.parse().ok()?;
    let rest = &word[digits.len()..];
    let ordinal = matches!(
        rest,
        "st" | "nd" | "rd" | "th" | "o" | "a" | "e" | "er" | "re" | "eme" | "ieme" | "º" | "ª"
    ) || (rest.is_empty() && next_is_dot);
    (ordinal && n > 0).then_some(n)
}

/// The position a description asks for, if any ("the second", "el penúltimo", "la 3ª",
/// "das letzte", "the 2nd", "second to last", "l'avant-dernière").
pub fn position(description: &str) -> Option<Position> {
    let folded = fold(description);
    let ws = words(&folded);
    for (i, w) in ws.iter().enumerate() {
        let next = ws.get(i + 1).copied();
        let prev = i.checked_sub(1).map(|p| ws[p]);
        if PENULTIMATE.iter().any(|s| stem_match(w, s, 2))
            || (*w == "avant" && next.is_some_and(|n| n.starts_with("dernier")))
            || (w.starts_with("second") && next == Some("to") && ws.get(i + 2) == Some(&"last"))
        {
            return Some(Position::FromEnd(2));
        }
        if LAST.iter().any(|s| stem_match(w, s, 2)) {
            if prev == Some("avant") {
                return Some(Position::FromEnd(2));
            }
            return Some(Position::FromEnd(1));
        }
        if let Some(&(_, n)) = ORDINALS.iter().find(|(s, _)| stem_match(w, s, 2)) {
            // "first name" / "Vorname" are names, not positions: only when no "name" follows.
            if n == 1 && next.is_some_and(|n| matches!(n, "name" | "names")) {
                continue;
            }
            return Some(Position::Nth(n));
        }
        // "2." in German: the dot follows the digits in the original text.
        let dot = description.contains(&format!("{w}."));
        if let Some(n) = numeral(w, dot) {
            return Some(Position::Nth(n));
        }
    }
    None
}

/// State words: (prefix, state, holds). Longer, negative forms come first so "unchecked" is
/// not read as "checked".
const STATES: &[(&str, State, bool)] = &[
    // checked
    ("unchecked", State::Checked, false),
    ("unticked", State::Checked, false),
    ("unselected", State::Selected, false),
    ("desmarcad", State::Checked, false),
    ("decoche", State::Checked, false),
    ("nicht angehakt", State::Checked, false),
    ("sin marcar", State::Checked, false),
    ("no marcad", State::Checked, false),
    ("checked", State::Checked, true),
    ("ticked", State::Checked, true),
    ("marcad", State::Checked, true),
    ("seleccionad", State::Selected, true),
    ("coche", State::Checked, true),
    ("angehakt", State::Checked, true),
    ("markiert", State::Checked, true),
    ("abgehakt", State::Checked, true),
    // disabled
    ("disabled", State::Disabled, true),
    ("greyed", State::Disabled, true),
    ("grayed", State::Disabled, true),
    ("deshabilitad", State::Disabled, true),
    ("inactiv", State::Disabled, true),
    ("desactive", State::Disabled, true),
    ("grise", State::Disabled, true),
    ("deaktiviert", State::Disabled, true),
    ("ausgegraut", State::Disabled, true),
    ("enabled", State::Disabled, false),
    ("habilitad", State::Disabled, false),
    // selected
    ("selected", State::Selected, true),
    ("current", State::Selected, true),
    ("selectionne", State::Selected, true),
    ("ausgewahlt", State::Selected, true),
    ("aktuell", State::Selected, true),
    // expanded
    ("expanded", State::Expanded, true),
    ("collapsed", State::Expanded, false),
    ("expandid", State::Expanded, true),
    ("deplie", State::Expanded, true),
    ("replie", State::Expanded, false),
    ("aufgeklappt", State::Expanded, true),
    ("zugeklappt", State::Expanded, false),
];

/// Words that turn the state after them around ("not checked", "sin marcar", "non cochée",
/// "nicht markiert", "pas coché").
const NEGATIONS: &[&str] = &["not", "sin", "no", "non", "pas", "nicht", "kein", "keine"];

/// Words for an empty box ("the empty checkbox", "la casilla vacía", "das leere Kästchen").
const EMPTY: &[&str] = &["empty", "blank", "vaci", "vide", "leer"];

/// The states a description asks for ("the unchecked one", "la casilla sin marcar").
pub fn states(description: &str) -> Vec<Asked> {
    let folded = fold(description);
    let ws = words(&folded);
    let mut out: Vec<Asked> = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        let negated = i > 0 && NEGATIONS.contains(&ws[i - 1])
            || i > 1 && NEGATIONS.contains(&ws[i - 2]) && ws[i - 1].len() <= 4;
        let pair = ws.get(i + 1).map(|n| format!("{w} {n}"));
        let hit = STATES
            .iter()
            .find(|(s, _, _)| s.contains(' ') && pair.as_deref().is_some_and(|p| p.starts_with(s)))
            .or_else(|| {
                STATES
                    .iter()
                    .find(|(s, _, _)| !s.contains(' ') && stem_match(w, s, 2))
            });
        let asked = match hit {
            Some(&(_, state, holds)) => Some(Asked {
                state,
                holds: holds != negated,
            }),
            None if EMPTY.iter().any(|s| stem_match(w, s, 2)) => Some(Asked {
                state: State::Checked,
                holds: false,
            }),
            None => None,
        };
        if let Some(a) = asked
            && !out.contains(&a)
        {
            out.push(a);
        }
    }
    out
}

/// Words that carry no meaning for matching a name in any of the four languages (articles,
/// prepositions, pronouns, filler and the verbs of clicking).
pub const STOPWORDS: &[&str] = &[
    // English
    "the",
    "a",
    "an",
    "of",
    "to",
    "in",
    "on",
    "for",
    "and",
    "or",
    "with",
    "my",
    "me",
    "it",
    "this",
    "that",
    "one",
    "please",
    "can",
    "you",
    "uh",
    "um",
    "click",
    "press",
    "tap",
    "hit",
    "select",
    "open",
    "go",
    "button",
    "link",
    "i",
    "want",
    "let",
    "s",
    "us",
    "just",
    // Spanish
    "el",
    "la",
    "los",
    "las",
    "un",
    "una",
    "de",
    "del",
    "al",
    "en",
    "y",
    "o",
    "con",
    "para",
    "por",
    "mi",
    "mis",
    "que",
    "lo",
    "le",
    "esa",
    "ese",
    "este",
    "esta",
    "eh",
    "pulsa",
    "haz",
    "clic",
    "dale",
    "boton",
    "enlace",
    "quiero",
    "porfa",
    "favor",
    // French
    "le",
    "les",
    "une",
    "des",
    "du",
    "au",
    "aux",
    "et",
    "ou",
    "avec",
    "pour",
    "sur",
    "mon",
    "ma",
    "mes",
    "ce",
    "cette",
    "qui",
    "euh",
    "clique",
    "cliquez",
    "appuie",
    "bouton",
    "lien",
    "veux",
    "voudrais",
    "sil",
    "plait",
    "l",
    "d",
    "j",
    // German
    "der",
    "die",
    "das",
    "den",
    "dem",
    "des",
    "ein",
    "eine",
    "einen",
    "und",
    "oder",
    "mit",
    "fur",
    "auf",
    "im",
    "zu",
    "zum",
    "zur",
    "mein",
    "meine",
    "bitte",
    "ah",
    "ahm",
    "klick",
    "klicke",
    "drucke",
    "knopf",
    "schaltflache",
    "ich",
    "will",
    "mochte",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_in_four_languages() {
        assert_eq!(position("the second message"), Some(Position::Nth(2)));
        assert_eq!(position("la tercera fila"), Some(Position::Nth(3)));
        assert_eq!(position("le deuxième produit"), Some(Position::Nth(2)));
        assert_eq!(position("den dritten Eintrag"), Some(Position::Nth(3)));
        assert_eq!(position("die 2. Zeile"), Some(Position::Nth(2)));
        assert_eq!(position("the 4th one"), Some(Position::Nth(4)));
        assert_eq!(position("la 2ª opción"), Some(Position::Nth(2)));
        assert_eq!(position("la última"), Some(Position::FromEnd(1)));
        assert_eq!(
            position("l'avant-dernière ligne"),
            Some(Position::FromEnd(2))
        );
        assert_eq!(position("das vorletzte"), Some(Position::FromEnd(2)));
        assert_eq!(position("second to last"), Some(Position::FromEnd(2)));
        assert_eq!(position("the last row"), Some(Position::FromEnd(1)));
        assert_eq!(position("the first name field"), None);
        assert_eq!(position("the secondary button"), None);
        assert_eq!(position("add to cart"), None);
    }

    #[test]
    fn states_and_their_negations() {
        let checked = |holds| Asked {
            state: State::Checked,
            holds,
        };
        assert_eq!(states("the unchecked one"), vec![checked(false)]);
        assert_eq!(states("la casilla sin marcar"), vec![checked(false)]);
        assert_eq!(states("la case non cochée"), vec![checked(false)]);
        assert_eq!(states("das nicht angehakte Kästchen"), vec![checked(false)]);
        assert_eq!(states("the ticked box"), vec![checked(true)]);
        assert_eq!(states("la casilla marcada"), vec![checked(true)]);
        assert_eq!(states("the empty checkbox"), vec![checked(false)]);
        assert_eq!(
            states("das deaktivierte Feld"),
            vec![Asked {
                state: State::Disabled,
                holds: true
            }]
        );
        assert_eq!(states("send my message"), vec![]);
    }

    #[test]
    fn fold_takes_accents_off() {
        assert_eq!(fold("Élément Größe Ñandú"), "element grosse nandu");
    }
}
