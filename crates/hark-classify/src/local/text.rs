//! Text normalisation: lower case, words of letters and digits (a `.` between digits kept, so
//! `4.99` is one token), the phrase table, number words, a light plural stemmer and the
//! synonym table of [`super::lexicon`].

use std::collections::HashMap;
use std::sync::OnceLock;

use super::lexicon::{NAME_STOPWORDS, NUMBER_WORDS, PHRASES, STOPWORDS, SYNONYMS};

/// One normalised word.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tok {
    /// The canonical word (synonyms and phrases folded, plurals stemmed).
    pub word: String,
    /// Whether the raw word is a filler word of names ([`NAME_STOPWORDS`]): not counted in
    /// coverage.
    pub stop: bool,
}

/// A normalised text.
pub type Tokens = Vec<Tok>;

/// Raw lower-case words of `text`, before any table applies.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let digit_dot = c == '.'
            && i > 0
            && chars[i - 1].is_ascii_digit()
            && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
        if c.is_alphanumeric() || digit_dot {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Phrases by first word, and synonyms by word: built once.
struct Tables {
    phrases: HashMap<&'static str, Vec<(&'static [&'static str], &'static str)>>,
    synonyms: HashMap<&'static str, &'static str>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut phrases: HashMap<_, Vec<_>> = HashMap::new();
        for (words, canonical) in PHRASES {
            phrases
                .entry(words[0])
                .or_default()
                .push((*words, *canonical));
        }
        let mut synonyms = HashMap::new();
        for (canonical, group) in SYNONYMS {
            synonyms.insert(*canonical, *canonical);
            for w in *group {
                synonyms.entry(*w).or_insert(*canonical);
            }
        }
        Tables { phrases, synonyms }
    })
}

/// Joins the phrases of [`PHRASES`] into their canonical tokens (a canonical value with a
/// space, like `"search textbox"`, gives two tokens).
pub fn join_phrases(raw: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    let t = tables();
    'outer: while i < raw.len() {
        let Some(candidates) = t.phrases.get(raw[i].as_str()) else {
            out.push(raw[i].clone());
            i += 1;
            continue;
        };
        for (phrase, canonical) in candidates {
            if raw.len() - i >= phrase.len() && phrase.iter().zip(&raw[i..]).all(|(p, w)| p == w) {
                out.extend(canonical.split(' ').map(str::to_string));
                i += phrase.len();
                continue 'outer;
            }
        }
        out.push(raw[i].clone());
        i += 1;
    }
    out
}

/// Words whose trailing `s` is not a plural.
const NOT_PLURAL: &[&str] = &[
    "news",
    "yes",
    "plus",
    "this",
    "always",
    "series",
    "species",
    "canvas",
    "atlas",
    "bonus",
    "campus",
    "status",
    "focus",
    "its",
    "has",
    "was",
    "is",
    "us",
    "does",
    "gas",
    "bus",
    "less",
    "terms",
    "settings",
    "options",
    "analytics",
    "lens",
    "chaos",
];

/// The light stemmer: `boxes` → `box`, `entries` → `entry`, `buttons` → `button`.
pub fn stem(word: &str) -> String {
    if word.len() <= 3 || NOT_PLURAL.contains(&word) || word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_string();
    }
    if let Some(base) = word.strip_suffix("ies") {
        return format!("{base}y");
    }
    for suffix in ["sses", "shes", "ches", "xes"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_string();
        }
    }
    if word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        return word[..word.len() - 1].to_string();
    }
    word.to_string()
}

/// The canonical form of one (phrase-joined) word: number words as digits, stemmed, then the
/// synonym table.
pub fn canonical(word: &str) -> String {
    if let Some((_, digit)) = NUMBER_WORDS.iter().find(|(w, _)| *w == word) {
        return (*digit).to_string();
    }
    let t = tables();
    if let Some(c) = t.synonyms.get(word) {
        return (*c).to_string();
    }
    let stemmed = stem(word);
    match t.synonyms.get(stemmed.as_str()) {
        Some(c) => (*c).to_string(),
        None => stemmed,
    }
}

/// Whether a raw word is a filler word.
pub fn is_stop(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

/// The tokens of an element's text (name, value or context): every word kept, canonical.
pub fn tokenize(text: &str) -> Tokens {
    if text.is_empty() {
        return Vec::new();
    }
    join_phrases(words(text))
        .into_iter()
        .map(|w| Tok {
            stop: NAME_STOPWORDS.contains(&w.as_str()),
            word: canonical(&w),
        })
        .collect()
}

/// How well query word `q` matches element word `e`: 1 for the same canonical word, 0.7 when
/// one is a prefix of the other and both have at least 4 letters, else 0.
pub fn similarity(q: &str, e: &str) -> f64 {
    // Words with different first bytes are neither equal nor prefixes of one another: most
    // pairs end here, without comparing the rest (a question over 255 options compares
    // thousands of pairs).
    if let (Some(a), Some(b)) = (q.as_bytes().first(), e.as_bytes().first())
        && a != b
    {
        return 0.0;
    }
    if q == e {
        1.0
    } else if q.len() >= 4 && e.len() >= 4 && (q.starts_with(e) || e.starts_with(q)) {
        0.7
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> Vec<String> {
        tokenize(text).into_iter().map(|t| t.word).collect()
    }

    #[test]
    fn folds_phrases_synonyms_numbers_and_plurals() {
        assert_eq!(canon("Sign me in"), ["login"]);
        assert_eq!(canon("Log in"), ["login"]);
        assert_eq!(canon("View basket"), ["view", "cart"]);
        assert_eq!(canon("Buttons ONE"), ["button", "1"]);
        assert_eq!(canon("First name"), ["firstname"]);
        assert_eq!(canon("$4.99 each"), ["4.99", "each"]);
        assert_eq!(canon("Entries"), ["entry"]);
        assert_eq!(canon("news"), ["news"]);
    }

    #[test]
    fn prefix_similarity_needs_four_letters() {
        assert_eq!(similarity("todo", "todos"), 0.7);
        assert_eq!(similarity("ad", "add"), 0.0);
    }
}
