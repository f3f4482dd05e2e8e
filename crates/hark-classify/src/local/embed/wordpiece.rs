//! BERT's uncased WordPiece tokenizer (the `bert-base-uncased` vocabulary the MiniLM sentence
//! models use): clean the text, split CJK characters apart, lowercase, strip accents (NFD,
//! drop combining marks), split on whitespace and punctuation, then greedy longest-match
//! WordPiece with `##` continuations. `[CLS]` first, `[SEP]` last; no padding ever (the
//! `tokenizer.json` some packages ship pads every input to 128 tokens: slow and wrong for
//! single-text embedding).

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Longest word WordPiece splits; longer words are `[UNK]` (as BERT).
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary: token → id (the line number in `vocab.txt`, from 0).
#[derive(Debug, Clone)]
pub struct WordPiece {
    ids: HashMap<String, i64>,
    cls: i64,
    sep: i64,
    unk: i64,
}

/// Why a vocabulary could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the vocabulary lacks the special token {0}")]
pub struct MissingToken(pub &'static str);

impl WordPiece {
    /// Reads `vocab.txt` text: one token a line, the id is the line number.
    ///
    /// # Errors
    /// [`MissingToken`] when `[CLS]`, `[SEP]` or `[UNK]` is absent.
    pub fn from_vocab(text: &str) -> Result<Self, MissingToken> {
        let ids: HashMap<String, i64> = text
            .lines()
            .enumerate()
            .map(|(i, t)| (t.trim_end_matches('\r').to_string(), i as i64))
            .collect();
        let get = |t: &'static str| ids.get(t).copied().ok_or(MissingToken(t));
        Ok(WordPiece {
            cls: get("[CLS]")?,
            sep: get("[SEP]")?,
            unk: get("[UNK]")?,
            ids,
        })
    }

    /// The vocabulary size.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the vocabulary is empty (never, once built).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Token ids of `text`: `[CLS]`, the word pieces (at most `max_len - 2`), `[SEP]`.
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<i64> {
        let mut out = vec![self.cls];
        let budget = max_len.saturating_sub(2).max(1);
        'words: for word in basic_words(text) {
            for id in self.pieces(&word) {
                if out.len() > budget {
                    break 'words;
                }
                out.push(id);
            }
        }
        out.push(self.sep);
        out
    }

    /// WordPiece ids of one basic word (lowercase, accents stripped, no punctuation inside).
    fn pieces(&self, word: &str) -> Vec<i64> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() > MAX_WORD_CHARS {
            return vec![self.unk];
        }
        let mut out = Vec::new();
        let mut start = 0;
        let mut piece = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.extend(&chars[start..end]);
                if let Some(&id) = self.ids.get(&piece) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => out.push(id),
                None => return vec![self.unk],
            }
            start = end;
        }
        out
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// BERT's punctuation: ASCII non-alphanumeric printable characters, and (approximating the
/// Unicode `P*` categories) other characters that are neither alphanumeric, whitespace nor
/// combining marks.
fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    !(c.is_alphanumeric() || c.is_whitespace() || is_combining_mark(c))
}

/// The basic tokenizer's words: cleaned, lowercased, accents stripped, split on whitespace and
/// punctuation (each punctuation character its own word), CJK characters one word each.
pub fn basic_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, words: &mut Vec<String>| {
        if !cur.is_empty() {
            words.push(std::mem::take(cur));
        }
    };
    for c in text.chars() {
        if c == '\0' || c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        if c.is_whitespace() {
            flush(&mut cur, &mut words);
            continue;
        }
        if is_cjk(c) || is_punct(c) {
            flush(&mut cur, &mut words);
            words.push(c.to_string());
            continue;
        }
        for l in c.to_lowercase() {
            for d in std::iter::once(l).nfd() {
                if !is_combining_mark(d) {
                    cur.push(d);
                }
            }
        }
    }
    flush(&mut cur, &mut words);
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        let v = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nbasket\nun\n##want\n##ed\n,\nrun\n##ning\ncafe\n";
        WordPiece::from_vocab(v).unwrap()
    }

    #[test]
    fn basic_words_lowercase_strip_accents_and_split_punctuation() {
        assert_eq!(
            basic_words("Café, UNwanted!  the\tbasket"),
            ["cafe", ",", "unwanted", "!", "the", "basket"]
        );
        assert_eq!(basic_words("中文"), ["中", "文"]);
    }

    #[test]
    fn wordpiece_longest_match_and_unknowns() {
        let v = vocab();
        assert_eq!(
            v.encode("unwanted, running", 64),
            [2, 6, 7, 8, 9, 10, 11, 3]
        );
        assert_eq!(v.encode("the xyz café", 64), [2, 4, 1, 12, 3]);
        // Truncation keeps [CLS] and [SEP].
        assert_eq!(v.encode("the basket the basket", 4), [2, 4, 5, 3]);
    }

    #[test]
    fn a_vocabulary_without_special_tokens_is_refused() {
        assert_eq!(
            WordPiece::from_vocab("a\nb\n").unwrap_err(),
            MissingToken("[CLS]")
        );
    }
}
