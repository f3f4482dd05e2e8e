//! Choice: which named element a short description means (`which_element`, `act`).
//!
//! A description is read into a [`Query`]: content words (canonical, see [`super::text`]),
//! quoted text, role words, state words, containers ("in the dialog", "in the last row") and a
//! position ("the 3rd textbox", "the last row"). Each option gets a score from its name,
//! value and context tokens, role, state and place in the tree; [`Scored::features`] are what
//! the calibration ([`super::calibration`]) maps to the probability that the best option is
//! right, so "none" is a low probability, never a forced pick.

use super::lexicon::{
    CONTAINER_PREPOSITIONS, CONTAINER_WORDS, IMPLIED_CONTAINERS, LAST_WORDS, MEASURE_NOUNS,
    Measure, NAME_VERBS, ORDINALS, OWNER_ROLES, PENULTIMATE, PURCHASE_VERBS, ROLE_WORDS,
    STATE_WORDS, SUPERLATIVES, StateWord, VERB_ROLES, roles,
};
use super::text::{Tokens, canonical, is_stop, join_phrases, similarity, stem, words};
use super::tree::{Node, ScreenTree, state};

/// A position among like elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The n-th from the start (1-based).
    Nth(usize),
    /// The n-th from the end (1 = last).
    FromEnd(usize),
}

/// A container the element must sit in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    /// Roles the container may have.
    pub roles: &'static [&'static str],
    /// Which one of them, when a position is given ("the last row").
    pub position: Option<Position>,
}

/// A description, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// Content words with their weight (1 for a plain word, [`ROLE_WORD_WEIGHT`] for a role
    /// word, which also names the role).
    pub content: Vec<(String, f64)>,
    /// Quoted text, canonical words.
    pub quoted: Vec<Vec<String>>,
    /// Roles the element may have (union over the role words), empty when none named.
    pub roles: Vec<&'static str>,
    /// States asked for.
    pub states: Vec<StateWord>,
    /// The words that asked for them, in the same order ("selected" in "Delete selected" is
    /// a name word when the element's name has it).
    pub state_words: Vec<String>,
    /// Containers the element must be in.
    pub containers: Vec<Container>,
    /// Position among the like elements.
    pub position: Option<Position>,
    /// A superlative: the option with the smallest (`true`) or largest price or duration
    /// among its own and its preceding text ("the cheapest ticket", "the longest flight").
    pub superlative: Option<(Measure, bool)>,
    /// The full-weight content words as written (phrases joined, no synonym folding), in
    /// order: the text the sentence-embedding model compares with element names.
    pub semantic: Vec<String>,
    /// The description's raw lower-case words ([`words`]), before any phrase or synonym
    /// table: of options that score alike, the one whose name the caller said word for word
    /// is the pick ("send" is Send, not "Place order", though both read "submit").
    pub written: Vec<String>,
    /// A verb of taking a product ([`PURCHASE_VERBS`]): an item the description names means
    /// the add-to-cart control inside it.
    pub purchase: bool,
    /// Roles a verb prefers ([`VERB_ROLES`]: "type" → fields), a soft preference.
    pub verb_roles: Vec<&'static str>,
    /// Whether the description has a verb at all (an action verb, a purchase verb or a verb
    /// of [`VERB_ROLES`]); without one it names a thing ("the cart").
    pub has_verb: bool,
}

/// Score bonus of an element in the state a description asks for when an element of the same
/// role and name is not in it (case U5: "the unchecked one" among same-named todos).
pub const CONTRAST_BONUS: f64 = 0.5;

/// Weight of a role word ("button") as a content word.
pub const ROLE_WORD_WEIGHT: f64 = 0.25;

/// Verbs of acting on a control (beside [`NAME_VERBS`] and the purchase verbs): a
/// description with one is not a bare noun phrase.
const ACTION_VERBS: &[&str] = &[
    "click", "press", "tap", "hit", "push", "choose", "select", "pick", "open", "close",
    "navigate", "visit", "show", "use", "activate", "check", "submit", "send", "find", "search",
    "login", "logout", "signup", "checkout", "dismiss", "mark", "change", "set",
];

/// Score points for a control inside an item the description names, over the item itself
/// (the "owner" feature).
pub const OWNER_BONUS: f64 = 0.5;

/// Score points off a verb-phrase name ("Add to cart") when the description has no verb.
pub const HEAD_NOUN_PENALTY: f64 = 0.5;

/// Score points off every option when the position asked is past the like elements ("the
/// 5th add to cart button" among four); the margin feature is then 0, so the calibration
/// reads "none".
pub const MISSING_POSITION: f64 = 6.0;

/// Whether all of `name`'s words appear in `written` as written, in order ("place my order"
/// says "Place order").
fn said_word_for_word(written: &[String], name: &str) -> bool {
    let name = words(name);
    let mut said = written.iter();
    !name.is_empty() && name.iter().all(|w| said.any(|s| s == w))
}

/// Score points for a role a verb prefers ([`Query::verb_roles`]).
pub const VERB_ROLE_BONUS: f64 = 0.5;

pub(super) fn role_word(w: &str) -> Option<&'static [&'static str]> {
    let s = stem(w);
    ROLE_WORDS
        .iter()
        .find(|(word, _)| *word == s)
        .map(|(_, r)| *r)
}

fn container_word(w: &str) -> Option<&'static [&'static str]> {
    let s = stem(w);
    CONTAINER_WORDS
        .iter()
        .find(|(word, _)| *word == s)
        .map(|(_, r)| *r)
}

fn state_word(w: &str) -> Option<StateWord> {
    STATE_WORDS
        .iter()
        .find(|(word, _)| *word == w)
        .map(|(_, s)| *s)
}

fn position_word(w: &str) -> Option<Position> {
    if let Some((_, n)) = ORDINALS.iter().find(|(word, _)| *word == w) {
        return Some(Position::Nth(*n));
    }
    if LAST_WORDS.contains(&w) {
        return Some(Position::FromEnd(1));
    }
    (w == PENULTIMATE).then_some(Position::FromEnd(2))
}

/// Text between double quotes (straight or curly).
fn quoted_parts(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['"', '“', '”']) {
        let after = &rest[open + rest[open..].chars().next().map_or(1, char::len_utf8)..];
        let Some(close) = after.find(['"', '“', '”']) else {
            break;
        };
        if close > 0 {
            out.push(&after[..close]);
        }
        rest = &after[close + after[close..].chars().next().map_or(1, char::len_utf8)..];
    }
    out
}

impl Query {
    /// Reads a description ("the second add to cart button", "sign me in").
    pub fn parse(text: &str) -> Self {
        Self::parse_among(text, &[])
    }

    /// Reads a description among elements some of whose whole names are one word, given
    /// canonical (`names`): a filler word that is such a name is the name, not filler ("the ok
    /// button" among [Cancel, OK] names OK; "view" is the View link, "text" the Text tab).
    pub fn parse_among(text: &str, names: &[String]) -> Self {
        let mut q = Query {
            written: words(text),
            ..Query::default()
        };
        for part in quoted_parts(text) {
            let ws: Vec<String> = join_phrases(words(part))
                .iter()
                .map(|w| canonical(w))
                .collect();
            if ws.len() == 1
                && let Some(r) = role_word(&ws[0])
            {
                add_roles(&mut q.roles, r);
                continue;
            }
            if !ws.is_empty() {
                q.quoted.push(ws);
            }
        }
        let ws = join_phrases(words(text));
        for w in &ws {
            if PURCHASE_VERBS.contains(&w.as_str()) {
                q.purchase = true;
                q.has_verb = true;
            }
            if let Some((_, r)) = VERB_ROLES.iter().find(|(v, _)| v == w) {
                add_roles(&mut q.verb_roles, r);
                q.has_verb = true;
            }
            if ACTION_VERBS.contains(&w.as_str()) || NAME_VERBS.contains(&canonical(w).as_str()) {
                q.has_verb = true;
            }
        }
        let mut i = 0;
        let mut prev_kind = Kind::Stop;
        while i < ws.len() {
            let w = ws[i].as_str();
            // "in the [last] row", "inside the dialog", "in row 3".
            if CONTAINER_PREPOSITIONS.contains(&w) {
                let mut j = i + 1;
                while j < ws.len() && matches!(ws[j].as_str(), "the" | "a" | "an" | "this") {
                    j += 1;
                }
                let mut position = ws.get(j).and_then(|w| position_word(w));
                if position.is_some() {
                    j += 1;
                }
                if let Some(roles) = ws.get(j).and_then(|w| container_word(w)) {
                    j += 1;
                    if position.is_none()
                        && let Some(n) = ws.get(j).and_then(|w| w.parse::<usize>().ok())
                    {
                        position = Some(Position::Nth(n));
                        j += 1;
                    }
                    q.containers.push(Container { roles, position });
                    i = j;
                    prev_kind = Kind::Stop;
                    continue;
                }
            }
            let next = ws.get(i + 1).map(String::as_str);
            if let Some((_, m, smallest)) = SUPERLATIVES.iter().find(|(word, _, _)| *word == w) {
                q.superlative = Some((*m, *smallest));
                prev_kind = Kind::Stop;
            } else if matches!(w, "most" | "least")
                && matches!(next, Some("expensive" | "costly" | "pricey"))
            {
                q.superlative = Some((Measure::Price, w == "least"));
                i += 2;
                prev_kind = Kind::Stop;
                continue;
            } else if q.superlative.is_some() && MEASURE_NOUNS.contains(&w) {
                prev_kind = Kind::Stop;
            } else if let Some(p) = position_word(w) {
                q.position = Some(p);
                prev_kind = Kind::Stop;
            } else if let Some(s) = state_word(w) {
                q.states.push(s);
                q.state_words.push(w.to_string());
                q.content.push((canonical(w), ROLE_WORD_WEIGHT));
                prev_kind = Kind::State;
            } else if let Some(r) = role_word(w) {
                add_roles(&mut q.roles, r);
                let s = stem(w);
                if let Some((_, roles)) = IMPLIED_CONTAINERS.iter().find(|(word, _)| *word == s)
                    && q.containers.is_empty()
                {
                    q.containers.push(Container {
                        roles,
                        position: None,
                    });
                }
                q.content.push((canonical(w), ROLE_WORD_WEIGHT));
                prev_kind = Kind::Role;
            } else if w == "one" {
                // "button one" names it; "the unchecked one" is a pronoun.
                if prev_kind == Kind::Role {
                    q.content.push(("1".to_string(), 1.0));
                }
                prev_kind = Kind::Stop;
            } else if is_stop(w) && !names.iter().any(|n| *n == canonical(w)) {
                prev_kind = Kind::Stop;
            } else {
                q.content.push((canonical(w), 1.0));
                q.semantic.push(w.to_string());
                prev_kind = Kind::Content;
            }
            i += 1;
        }
        // "the checked box", "unticked boxes": a box that can be checked is a checkbox.
        let checkable_state = q.states.iter().any(|s| {
            matches!(
                s,
                StateWord::Checked
                    | StateWord::Unchecked
                    | StateWord::Selected
                    | StateWord::Unselected
            )
        });
        if checkable_state
            && ws.iter().any(|w| stem(w) == "box")
            && !ws.iter().any(|w| w == "textbox")
        {
            q.roles.retain(|r| !roles::FIELD.contains(r));
            add_roles(&mut q.roles, roles::CHECKBOX);
        }
        q
    }

    /// The text the embedding model compares with element names: the full-weight content
    /// words joined by spaces (empty when there are none).
    pub fn semantic_text(&self) -> String {
        self.semantic.join(" ")
    }

    /// Whether any content word carries full weight (not only role words).
    pub fn has_content(&self) -> bool {
        self.content.iter().any(|(_, w)| *w >= 1.0) || !self.quoted.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stop,
    State,
    Role,
    Content,
}

fn add_roles(into: &mut Vec<&'static str>, roles: &'static [&'static str]) {
    for r in roles {
        if !into.contains(r) {
            into.push(r);
        }
    }
}

/// Roles whose elements can be checked.
const CHECKABLE: &[&str] = &[
    "checkbox",
    "radio",
    "switch",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "treeitem",
];
/// Roles whose elements can be selected.
const SELECTABLE: &[&str] = &["option", "tab", "row", "gridcell", "treeitem", "cell"];
/// Roles that can be disabled.
const INTERACTIVE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "option",
    "tab",
    "menuitem",
    "switch",
    "slider",
    "spinbutton",
    "listbox",
    "menuitemcheckbox",
    "menuitemradio",
    "treeitem",
];
/// Roles that can be expanded.
const EXPANDABLE: &[&str] = &["combobox", "treeitem", "button", "menuitem", "row"];

/// Whether `state` can be asked of `node` at all (an unchecked heading is meaningless).
pub fn state_applies(word: StateWord, node: &Node) -> bool {
    let r = node.role.as_str();
    match word {
        StateWord::Checked | StateWord::Unchecked => CHECKABLE.contains(&r),
        StateWord::Selected | StateWord::Unselected => {
            SELECTABLE.contains(&r) || CHECKABLE.contains(&r)
        }
        StateWord::Disabled | StateWord::Enabled => INTERACTIVE.contains(&r),
        StateWord::Expanded | StateWord::Collapsed => EXPANDABLE.contains(&r),
        StateWord::Empty | StateWord::Filled => roles::FIELD.contains(&r),
        StateWord::Focused | StateWord::Offscreen => true,
    }
}

/// Whether `node` is in `state` (and the state applies to it).
pub fn state_holds(word: StateWord, node: &Node) -> bool {
    if !state_applies(word, node) {
        return false;
    }
    let on = |bit| node.has(bit);
    match word {
        StateWord::Checked => on(state::CHECKED) || on(state::SELECTED),
        StateWord::Unchecked => !on(state::CHECKED) && !on(state::SELECTED),
        StateWord::Selected => on(state::SELECTED) || on(state::CHECKED),
        StateWord::Unselected => !on(state::SELECTED) && !on(state::CHECKED),
        StateWord::Disabled => on(state::DISABLED),
        StateWord::Enabled => !on(state::DISABLED),
        StateWord::Expanded => on(state::EXPANDED),
        StateWord::Collapsed => !on(state::EXPANDED),
        StateWord::Focused => on(state::FOCUSED),
        StateWord::Offscreen => on(state::OFFSCREEN),
        StateWord::Empty => node.value.trim().is_empty(),
        StateWord::Filled => !node.value.trim().is_empty(),
    }
}

/// One option as the scorer sees it: its node and its index in the tree (`None` when the
/// option is not on the parsed screen and was read from its description).
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// The element.
    pub node: &'a Node,
    /// Index in [`ScreenTree::nodes`], for containers and document order.
    pub index: Option<usize>,
}

/// The scores of all options and the features of the best one.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// One score per option, in the options' order (higher is better; unbounded).
    pub scores: Vec<f64>,
    /// Index of the best option (the first of equals).
    pub best: usize,
    /// Calibration features of the best option: `[score, margin over the runner-up (at most
    /// 4; 0 when the position asked is past the end), unmatched content share (0 when the
    /// description has no content words), semantic margin: the cosine of its name's embedding
    /// with the description's minus the highest cosine among the other options, times the
    /// share of the description's words no option name has (0 without embeddings)]`. A
    /// control that scored as the item it sits in (the owner feature: "I'll take the French
    /// press" → its "Add to cart") reads its item's words and cosine, and its item is not its
    /// runner-up.
    pub features: [f64; 4],
    /// Per option: whether it meets every role, state and container constraint asked.
    pub ok: Vec<bool>,
    /// Whether the embedding cosines entered the scores (a [`Semantic`] was given, some
    /// description word was in no option's name, and the cosines came).
    pub semantic: bool,
}

/// The best [`similarity`] of `q` with any of `toks` (0 when none); stops at an exact match,
/// the most there is.
fn best_sim(q: &str, toks: &Tokens) -> f64 {
    let mut best = 0.0;
    for t in toks {
        let s = similarity(q, &t.word);
        if s >= 1.0 {
            return s;
        }
        best = f64::max(best, s);
    }
    best
}

/// The semantic feature of a choice: how to get, per candidate, the cosine of its name's
/// embedding with the description's (in the candidates' order; `None` when it cannot), and
/// its weight in the score. Called only when some description word is in no option's name.
#[derive(Clone, Copy)]
pub struct Semantic<'a> {
    /// One cosine per candidate, in `[-1, 1]`, or `None`.
    pub cosines: &'a dyn Fn() -> Option<Vec<f64>>,
    /// Score points per unit of cosine.
    pub weight: f64,
}

impl std::fmt::Debug for Semantic<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Semantic")
            .field("weight", &self.weight)
            .finish_non_exhaustive()
    }
}

/// Scores every candidate against `query` (see the module docs), adding `weight × cosine`
/// when `semantic` is given. `tree` gives containers; an empty `candidates` gives an empty
/// result with `best` 0 and zero features.
pub fn score(
    query: &Query,
    tree: &ScreenTree,
    candidates: &[Candidate<'_>],
    semantic: Option<Semantic<'_>>,
) -> Scored {
    let n = candidates.len();
    if n == 0 {
        return Scored {
            scores: Vec::new(),
            best: 0,
            features: [0.0; 4],
            ok: Vec::new(),
            semantic: false,
        };
    }
    // Word weights: a word many option names share tells less (inverse document frequency);
    // a word no option has keeps full weight, so it counts against every option.
    let weights: Vec<f64> = query
        .content
        .iter()
        .map(|(w, base)| {
            let df = candidates
                .iter()
                .filter(|c| c.node.name_tokens.iter().any(|t| &t.word == w))
                .count() as f64;
            base / (1.0 + 0.5 * (df / n as f64) * (1.0 + df).ln())
        })
        .collect();
    let total_weight: f64 = weights.iter().sum();

    // Containers named with a position resolve to one node each.
    let container_sets: Vec<Vec<usize>> = query
        .containers
        .iter()
        .map(|c| {
            let all: Vec<usize> = tree
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, nd)| c.roles.contains(&nd.role.as_str()))
                .map(|(i, _)| i)
                .collect();
            match c.position {
                None => all,
                Some(Position::Nth(k)) => all.get(k.wrapping_sub(1)).copied().into_iter().collect(),
                Some(Position::FromEnd(k)) => all
                    .len()
                    .checked_sub(k)
                    .and_then(|i| all.get(i))
                    .copied()
                    .into_iter()
                    .collect(),
            }
        })
        .collect();

    let state_canon: Vec<String> = query.state_words.iter().map(|w| canonical(w)).collect();
    let mut name_hits = Vec::with_capacity(n);
    let mut word_matches: Vec<Vec<f64>> = Vec::with_capacity(n);
    let mut scores = Vec::with_capacity(n);
    let mut lexes = Vec::with_capacity(n);
    let mut constraints_ok = Vec::with_capacity(n);
    for c in candidates {
        let node = c.node;
        // Content words against name (full), value (0.7) and context (0.5).
        let mut matched = 0.0;
        let mut all_matched = query.has_content();
        let mut per_word = Vec::with_capacity(query.content.len());
        for ((w, base), weight) in query.content.iter().zip(&weights) {
            let m = best_sim(w, &node.name_tokens)
                .max(0.7 * best_sim(w, &node.value_tokens))
                .max(0.6 * best_sim(w, &node.context_tokens));
            per_word.push(m);
            matched += weight * m;
            if *base >= 1.0 && m == 0.0 {
                all_matched = false;
            }
        }
        let lex = if total_weight > 0.0 {
            matched / total_weight
        } else {
            0.0
        };
        // How much of the name the description covers.
        let mut name_words = 0usize;
        let mut covered = 0usize;
        for t in node.name_tokens.iter().filter(|t| !t.stop) {
            name_words += 1;
            if query
                .content
                .iter()
                .any(|(w, _)| similarity(w, &t.word) >= 0.7)
                || query.quoted.iter().flatten().any(|w| *w == t.word)
            {
                covered += 1;
            }
        }
        let coverage = if name_words > 0 {
            covered as f64 / name_words as f64
        } else {
            0.0
        };
        word_matches.push(per_word);
        name_hits.push(
            query
                .content
                .iter()
                .any(|(w, base)| *base >= 1.0 && best_sim(w, &node.name_tokens) >= 0.7),
        );
        let mut s = 4.0 * lex + if lex > 0.0 { coverage } else { 0.0 };
        if !query.verb_roles.is_empty() && query.verb_roles.contains(&node.role.as_str()) {
            s += VERB_ROLE_BONUS;
        }
        if !query.has_verb
            && query.has_content()
            && node
                .name_tokens
                .iter()
                .find(|t| !t.stop)
                .is_some_and(|t| NAME_VERBS.contains(&t.word.as_str()))
        {
            s -= HEAD_NOUN_PENALTY;
        }
        if all_matched {
            s += 1.0;
        }
        if INTERACTIVE.contains(&node.role.as_str()) {
            // People act on controls: between equals, prefer the control to its heading.
            s += 0.2;
        }
        if query.has_content() && name_words > 0 && covered == name_words && lex >= 0.99 {
            s += 1.0;
        }
        for quoted in &query.quoted {
            let name: Vec<&str> = node.name_tokens.iter().map(|t| t.word.as_str()).collect();
            if name.len() == quoted.len() && name.iter().zip(quoted).all(|(a, b)| a == b) {
                s += 3.0;
            } else if !quoted.is_empty() && quoted.iter().all(|w| name.contains(&w.as_str())) {
                s += 1.0;
            }
        }
        let mut ok = true;
        if !query.roles.is_empty() {
            if query.roles.contains(&node.role.as_str()) {
                s += 1.0;
            } else if node.role == "button" && query.roles.contains(&"combobox") {
                // A custom dropdown is often a button.
                s -= 0.3;
            } else {
                s -= 1.5;
                ok = false;
            }
        }
        for (k, &sw) in query.states.iter().enumerate() {
            let in_name = state_canon
                .get(k)
                .is_some_and(|w| node.name_tokens.iter().any(|t| &t.word == w));
            if state_holds(sw, node) {
                s += 1.0;
                // "the unchecked one": the state sets it apart from a peer of the same role
                // and name that lacks it (a todo's box beside a checked todo's), not from
                // nothing (the toggle-all box).
                let contrasted = candidates.iter().any(|o| {
                    !std::ptr::eq(o.node, node)
                        && o.node.role == node.role
                        && o.node.name == node.name
                        && state_applies(sw, o.node)
                        && !state_holds(sw, o.node)
                });
                if contrasted {
                    s += CONTRAST_BONUS;
                }
            } else if in_name {
                s += 0.5;
            } else {
                s -= 2.0;
                ok = false;
            }
        }
        for set in &container_sets {
            let inside = c
                .index
                .is_some_and(|i| set.iter().any(|&a| tree.is_descendant(i, a)));
            if inside {
                s += 1.0;
            } else {
                s -= 2.0;
                ok = false;
            }
        }
        scores.push(s);
        lexes.push(lex);
        constraints_ok.push(ok);
    }

    // The semantic feature counts as much as the words fail: when some option's name has the
    // description's words, the lexical features decide; when none has them ("milk and cheese"
    // for "Dairy products"), the embedding does. Relative to the closest name, so a screen
    // of near names does not raise every score.
    let best_lex = lexes.iter().copied().fold(0.0, f64::max);
    let gate = (1.0 - best_lex).clamp(0.0, 1.0);
    let cosines = semantic
        .filter(|_| gate > 1e-9)
        .and_then(|s| (s.cosines)().map(|c| (c, s.weight)))
        .filter(|(c, _)| c.len() == n);
    if let Some((cos, weight)) = &cosines {
        let max_cosine = cos.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for (score, c) in scores.iter_mut().zip(cos) {
            *score += gate * weight * (c - max_cosine);
        }
    }

    // The owner feature: a control inside an item the description names ("I'll take the
    // French press" → the "Add to cart" in the French press's list item) scores as its item
    // plus a bonus, when the description also names the control ("the kettle's add to cart
    // button", "put … in my basket") or has a verb of taking a product.
    // Node index → candidate (the last candidate of a node, as a map collected in order).
    let mut at: Vec<Option<usize>> = vec![None; tree.nodes.len()];
    for (k, c) in candidates.iter().enumerate() {
        if let Some(i) = c.index
            && let Some(slot) = at.get_mut(i)
        {
            *slot = Some(k);
        }
    }
    let base = scores.clone();
    // Whose features a candidate's calibration reads: its own, or its owner's when it scored
    // as its owner.
    let mut proxy: Vec<usize> = (0..n).collect();
    let mut owner_lex = lexes.clone();
    for (j, c) in candidates.iter().enumerate() {
        let Some(index) = c.index else { continue };
        if !INTERACTIVE.contains(&c.node.role.as_str()) || !constraints_ok[j] {
            continue;
        }
        let acquiring = acquiring_name(c.node);
        let verb_role = query.verb_roles.contains(&c.node.role.as_str());
        let mut owners: Vec<usize> = Vec::new();
        if name_hits[j] || query.purchase && acquiring {
            let mut up = tree.nodes[index].parent;
            for _ in 0..4 {
                let Some(a) = up else { break };
                if OWNER_ROLES.contains(&tree.nodes[a].role.as_str()) {
                    // The item itself when named, and the named things in it (a product's
                    // link or heading beside its button).
                    owners.extend(at[a]);
                    let depth = tree.nodes[a].depth;
                    let taking = query.purchase && acquiring;
                    owners.extend(
                        (a + 1..tree.nodes.len())
                            .take_while(|&d| tree.nodes[d].depth > depth)
                            .filter_map(|d| at[d])
                            .filter(|&k| taking && k != j && !acquiring_name(candidates[k].node)),
                    );
                    break;
                }
                up = tree.nodes[a].parent;
            }
        }
        if verb_role && !name_hits[j] {
            // "tick off learn piano": the checkbox beside the item's text.
            let parent = tree.nodes[index].parent;
            owners.extend(candidates.iter().enumerate().filter_map(|(k, o)| {
                let oi = o.index?;
                (k != j
                    && tree.nodes[oi].parent == parent
                    && !INTERACTIVE.contains(&o.node.role.as_str()))
                .then_some(k)
            }));
        }
        for i in owners {
            // The words the control's own name has ("add … to the cart") count with the
            // item's ("the French press").
            let matched: f64 = weights
                .iter()
                .enumerate()
                .map(|(w, weight)| weight * word_matches[i][w].max(word_matches[j][w]))
                .sum();
            let together = if total_weight > 0.0 {
                matched / total_weight
            } else {
                0.0
            };
            let owned = base[i] + OWNER_BONUS + 4.0 * (together - lexes[i]).max(0.0);
            if owned > scores[j] {
                scores[j] = owned;
                proxy[j] = i;
                owner_lex[j] = together.max(lexes[i]);
            }
        }
    }

    let mut position_missing = false;
    if let Some(pos) = query.position {
        let best_lex = (0..n)
            .filter(|&i| constraints_ok[i])
            .map(|i| lexes[i])
            .fold(0.0, f64::max);
        let content = query.has_content();
        let mut eligible: Vec<usize> = (0..n)
            .filter(|&i| constraints_ok[i])
            .filter(|&i| !content || (lexes[i] > 0.0 && lexes[i] >= best_lex - 0.2))
            .collect();
        eligible.sort_by_key(|&i| candidates[i].index.unwrap_or(usize::MAX - n + i));
        // Only elements on screen count for positions, when there are any.
        let visible: Vec<usize> = eligible
            .iter()
            .copied()
            .filter(|&i| !candidates[i].node.has(state::OFFSCREEN))
            .collect();
        let list = if visible.is_empty() {
            &eligible
        } else {
            &visible
        };
        let chosen = match pos {
            Position::Nth(k) => list.get(k.wrapping_sub(1)).copied(),
            Position::FromEnd(k) => list.len().checked_sub(k).and_then(|i| list.get(i)).copied(),
        };
        match chosen {
            Some(i) => scores[i] += 3.0,
            // "the 5th add to cart button" among four: nothing is at that place.
            None if !list.is_empty() => {
                scores.iter_mut().for_each(|s| *s -= MISSING_POSITION);
                position_missing = true;
            }
            None => {}
        }
    }

    if let Some((measure, smallest)) = query.superlative {
        let values: Vec<Option<f64>> = (0..n)
            .map(|i| {
                if !constraints_ok[i] {
                    return None;
                }
                measure_of(measure, tree, candidates, i)
            })
            .collect();
        let known: Vec<(usize, f64)> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (i, v)))
            .collect();
        if known.len() >= 2 {
            let pick = known.iter().copied().reduce(|a, b| {
                let better = if smallest { b.1 < a.1 } else { b.1 > a.1 };
                if better { b } else { a }
            });
            if let Some((i, _)) = pick {
                scores[i] += 3.0;
            }
        }
    }

    let mut best = 0;
    for i in 1..n {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    // Names the synonym tables read alike score alike (Send and "Place order" both read
    // "submit"): of equals, the one whose name was said word for word is meant ("send" is
    // Send). Only the pick changes, not the scores the calibration reads.
    if !said_word_for_word(&query.written, &candidates[best].node.name)
        && let Some(said) = (0..n).find(|&i| {
            (scores[i] - scores[best]).abs() < 1e-9
                && said_word_for_word(&query.written, &candidates[i].node.name)
        })
    {
        best = said;
    }
    // The owner a control scored as is not its rival.
    let runner_up = (0..n)
        .filter(|&i| i != best && i != proxy[best])
        .map(|i| scores[i])
        .fold(f64::NEG_INFINITY, f64::max);
    let margin = if position_missing {
        0.0 // no option is the one asked
    } else if runner_up.is_finite() {
        (scores[best] - runner_up).min(4.0)
    } else {
        4.0_f64.min(scores[best].max(0.0))
    };
    let unmatched = if query.has_content() {
        1.0 - owner_lex[best]
    } else {
        0.0
    };
    // The best option's cosine over the closest other name's (0 without embeddings).
    let cosine = cosines.as_ref().map_or(0.0, |(cos, _)| {
        let own = proxy[best];
        let others = (0..n)
            .filter(|&i| i != best && i != own)
            .map(|i| cos[i])
            .fold(f64::NEG_INFINITY, f64::max);
        gate * if others.is_finite() {
            cos[own] - others
        } else {
            cos[own]
        }
    });
    let features = [scores[best], margin, unmatched, cosine];
    Scored {
        scores,
        best,
        features,
        ok: constraints_ok,
        semantic: cosines.is_some(),
    }
}

/// Whether a name is an add-to-cart control's ("Add to cart", "Buy now", "Add").
fn acquiring_name(node: &Node) -> bool {
    node.name_tokens
        .iter()
        .any(|t| matches!(t.word.as_str(), "add" | "buy" | "cart"))
}

/// Nodes scanned back from an option for its measure ("Duration: 11h 21m" before a "Book"
/// button), stopping at another option.
const MEASURE_LOOKBACK: usize = 6;

/// The price or duration of option `i`: in its own name or value, else in the text just
/// before it in document order (up to the previous option).
fn measure_of(
    measure: Measure,
    tree: &ScreenTree,
    candidates: &[Candidate<'_>],
    i: usize,
) -> Option<f64> {
    let node = candidates[i].node;
    let own = format!("{} {}", node.name, node.value);
    if let Some(v) = parse_measure(measure, &own) {
        return Some(v);
    }
    let at = candidates[i].index?;
    let others: Vec<usize> = candidates.iter().filter_map(|c| c.index).collect();
    let mut text = String::new();
    for j in (at.saturating_sub(MEASURE_LOOKBACK)..at).rev() {
        if others.contains(&j) {
            break;
        }
        text = format!("{} {}", tree.nodes[j].name, text);
    }
    parse_measure(measure, &text)
}

/// The first price (a number next to a currency sign) or total duration (numbers with hour
/// and minute units, in minutes) in `text`.
pub fn parse_measure(measure: Measure, text: &str) -> Option<f64> {
    // Split into number and non-number runs.
    let mut parts: Vec<(bool, String)> = Vec::new();
    for c in text.chars() {
        let is_num =
            c.is_ascii_digit() || (c == '.' || c == ',') && parts.last().is_some_and(|p| p.0);
        match parts.last_mut() {
            Some((num, s)) if *num == is_num => s.push(c),
            _ => parts.push((is_num, c.to_string())),
        }
    }
    let number = |s: &str| {
        s.trim_end_matches(['.', ','])
            .replace(',', "")
            .parse::<f64>()
            .ok()
    };
    match measure {
        Measure::Price => {
            for (k, (num, s)) in parts.iter().enumerate() {
                if !*num {
                    continue;
                }
                let before = k
                    .checked_sub(1)
                    .map(|b| parts[b].1.trim_end())
                    .unwrap_or("");
                let after = parts.get(k + 1).map(|p| p.1.trim_start()).unwrap_or("");
                let sign = |t: &str| t.ends_with(['$', '€', '£', '¥']);
                let sign_after = after.starts_with(['$', '€', '£', '¥'])
                    || after.to_lowercase().starts_with("eur")
                    || after.to_lowercase().starts_with("usd");
                if sign(before) || sign_after {
                    return number(s);
                }
            }
            None
        }
        Measure::Duration => {
            let mut total = 0.0;
            let mut found = false;
            for (k, (num, s)) in parts.iter().enumerate() {
                if !*num {
                    continue;
                }
                let unit: String = parts
                    .get(k + 1)
                    .map(|p| {
                        p.1.trim_start()
                            .chars()
                            .take_while(|c| c.is_alphabetic())
                            .collect()
                    })
                    .unwrap_or_default();
                let unit = unit.to_lowercase();
                let factor = if unit.starts_with('h') {
                    60.0
                } else if unit.starts_with('m') {
                    1.0
                } else if unit.starts_with('d') {
                    1440.0
                } else {
                    continue;
                };
                if let Some(v) = number(s) {
                    total += v * factor;
                    found = true;
                }
            }
            found.then_some(total)
        }
    }
}
