//! What the ranker reads of one description and the options on one screen: per option a row
//! of [`FEATURES`] numbers, and a row of [`NONE_FEATURES`] for "nothing fits".
//!
//! The features are the snapshot's own facts — the element's name, the text of the row or
//! item it sits in, its section, role, state, and position among like elements — each set
//! against the description: through the sentence embedding (cosines), by shared words and
//! letters (any language, accents folded), and by the positions and states of
//! [`super::words`]. No feature names an English word; the hand-written scorer's
//! probabilities (English lexicon, role words, owners) come in as three features, so what it
//! knows is one input among the others rather than a special case.

use std::collections::HashMap;

use super::super::choice::Candidate;
use super::super::tree::{ScreenTree, state};
use super::words::{self, Asked, Position, State};

/// Features per option (the names, in order, are [`FEATURE_NAMES`]).
pub const FEATURES: usize = 28;

/// Features of "nothing fits" ([`NONE_FEATURE_NAMES`]).
pub const NONE_FEATURES: usize = 8;

/// The option features' names, as the training script and the weights file name them.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "cos_name",
    "cos_name_rel",
    "cos_ctx",
    "cos_ctx_rel",
    "cos_name_top",
    "cos_ctx_top",
    "name_covered",
    "desc_in_name",
    "desc_in_ctx",
    "trigram",
    "same_name_count",
    "position_same_name",
    "position_same_kind",
    "position_asked",
    "state_match",
    "role_button",
    "role_link",
    "role_field",
    "role_toggle",
    "role_choice",
    "role_other",
    "offscreen",
    "value_match",
    "name_words",
    "cos_name_gap",
    "lex_prob",
    "lex_log_rel",
    "lex_best",
];

/// The "nothing fits" features' names.
pub const NONE_FEATURE_NAMES: [&str; NONE_FEATURES] = [
    "bias",
    "max_cos_name",
    "max_cos_ctx",
    "max_desc_in_name",
    "position_unmatched",
    "state_unmatched",
    "options_ln",
    "lex_max",
];

/// The encoder the features need: a description's embedding and its options' texts'.
pub trait Encoder {
    /// The description's embedding (unit length).
    fn query(&self, text: &str) -> Result<Vec<f32>, String>;
    /// The texts' embeddings (unit length), in order; cached by the implementation.
    fn passages(&self, texts: &[&str]) -> Result<Vec<std::sync::Arc<[f32]>>, String>;
}

/// The features of one question.
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    /// One row per option, [`FEATURES`] each.
    pub options: Vec<[f32; FEATURES]>,
    /// "Nothing fits".
    pub none: [f32; NONE_FEATURES],
}

fn role_class(role: &str) -> usize {
    match role {
        "button" => 0,
        "link" => 1,
        "textbox" | "searchbox" | "combobox" | "listbox" | "spinbutton" | "slider" => 2,
        "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio" => 3,
        "tab" | "menuitem" | "option" | "treeitem" => 4,
        _ => 5,
    }
}

/// Roles of an item the element sits in: its row's or item's text is its context.
const ITEM_ROLES: &[&str] = &[
    "row", "listitem", "article", "option", "treeitem", "group", "figure",
];

/// Roles of a section whose name is context ("the save button in Billing").
const SECTION_ROLES: &[&str] = &[
    "region",
    "form",
    "dialog",
    "alertdialog",
    "navigation",
    "complementary",
    "banner",
    "contentinfo",
    "main",
    "table",
    "grid",
    "list",
    "tabpanel",
    "menu",
    "toolbar",
];

/// At most this many words of an item's text are context.
const CONTEXT_WORDS: usize = 24;

/// The context of node `i`: the text of the item it sits in (its row, list item, card) but
/// its own name, then the name of its nearest named section. Empty when it sits in neither.
pub fn context_text(tree: &ScreenTree, children: &[Vec<usize>], i: usize) -> String {
    let nodes = &tree.nodes;
    let mut out = String::new();
    let mut words = 0;
    let mut item = None;
    let mut section = None;
    let mut p = nodes[i].parent;
    let mut hops = 0;
    while let Some(pi) = p {
        let role = nodes[pi].role.as_str();
        if item.is_none() && hops < 6 && ITEM_ROLES.contains(&role) {
            item = Some(pi);
        }
        if section.is_none() && !nodes[pi].name.is_empty() && SECTION_ROLES.contains(&role) {
            section = Some(pi);
        }
        if item.is_some() && section.is_some() {
            break;
        }
        p = nodes[pi].parent;
        hops += 1;
    }
    if let Some(it) = item {
        if !nodes[it].name.is_empty() && it != i {
            push_words(&mut out, &nodes[it].name, &mut words);
        }
        let mut stack: Vec<usize> = children[it].iter().rev().copied().collect();
        while let Some(c) = stack.pop() {
            if words >= CONTEXT_WORDS {
                break;
            }
            if c != i && !nodes[c].name.is_empty() {
                push_words(&mut out, &nodes[c].name, &mut words);
            }
            if c != i {
                stack.extend(children[c].iter().rev().copied());
            }
        }
    }
    if let Some(s) = section {
        if !out.is_empty() {
            out.push_str(" | ");
        }
        out.push_str(&nodes[s].name);
    }
    out
}

fn push_words(out: &mut String, text: &str, count: &mut usize) {
    for w in text.split_whitespace() {
        if *count >= CONTEXT_WORDS {
            return;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
        *count += 1;
    }
}

/// The words of a text that carry meaning: folded, without [`words::STOPWORDS`], each cut
/// to its first five letters (so "messages" meets "message", "mensajes" meets "mensaje").
pub fn content_stems(text: &str) -> Vec<String> {
    let folded = words::fold(text);
    words::words(&folded)
        .into_iter()
        .filter(|w| !words::STOPWORDS.contains(w))
        .map(|w| w.chars().take(5).collect())
        .collect()
}

fn share_in(of: &[String], inside: &[String]) -> f32 {
    if of.is_empty() {
        return 0.0;
    }
    of.iter().filter(|w| inside.contains(w)).count() as f32 / of.len() as f32
}

fn trigrams(text: &str) -> Vec<[char; 3]> {
    let folded: Vec<char> = format!(" {} ", words::fold(text)).chars().collect();
    let mut out: Vec<[char; 3]> = folded.windows(3).map(|w| [w[0], w[1], w[2]]).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Dice coefficient of two sorted, deduplicated trigram lists.
fn dice(a: &[[char; 3]], b: &[[char; 3]]) -> f32 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut both) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * both as f32 / (a.len() + b.len()) as f32
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The kind of an element for positions: its role and the roles of up to four ancestors
/// ("link < listitem < list < main").
fn kind_key(tree: &ScreenTree, i: usize) -> String {
    let mut key = tree.nodes[i].role.to_string();
    let mut p = tree.nodes[i].parent;
    let mut hops = 0;
    while let Some(pi) = p {
        if hops == 4 {
            break;
        }
        key.push('<');
        key.push_str(&tree.nodes[pi].role);
        p = tree.nodes[pi].parent;
        hops += 1;
    }
    key
}

/// Whether 1-based `index` of `count` is `pos`.
fn at_position(pos: Position, index: usize, count: usize) -> bool {
    match pos {
        Position::Nth(n) => index == n,
        Position::FromEnd(n) => n <= count && index == count + 1 - n,
    }
}

fn applies(asked: State, role: &str) -> bool {
    match asked {
        State::Checked => matches!(
            role,
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
        ),
        State::Selected => matches!(role, "tab" | "option" | "treeitem" | "row" | "gridcell"),
        State::Expanded => matches!(
            role,
            "button" | "combobox" | "treeitem" | "menuitem" | "link"
        ),
        State::Disabled => true,
    }
}

fn holds(asked: State, flags: u8) -> bool {
    let bit = match asked {
        State::Checked => state::CHECKED,
        State::Selected => state::SELECTED,
        State::Expanded => state::EXPANDED,
        State::Disabled => state::DISABLED,
    };
    flags & bit != 0
}

/// The texts an option is embedded by: its name, and its name with its context (the name
/// alone when it has no context). Computed per screen and cached with it.
#[derive(Debug, Clone, Default)]
pub struct OptionTexts {
    /// The name.
    pub name: String,
    /// `name — context`, or the name.
    pub with_context: String,
    /// Content stems of the name.
    pub name_stems: Vec<String>,
    /// Content stems of the context.
    pub context_stems: Vec<String>,
    /// Name trigrams.
    pub trigrams: Vec<[char; 3]>,
}

impl OptionTexts {
    /// The texts of node `i` of `tree`.
    pub fn of(tree: &ScreenTree, children: &[Vec<usize>], i: usize) -> Self {
        let name = tree.nodes[i].name.clone();
        let context = context_text(tree, children, i);
        let with_context = if context.is_empty() {
            name.clone()
        } else {
            format!("{name} — {context}")
        };
        OptionTexts {
            name_stems: content_stems(&name),
            context_stems: content_stems(&context),
            trigrams: trigrams(&name),
            name,
            with_context,
        }
    }

    /// The texts of an option not on the screen (only its name is known).
    pub fn named(name: &str) -> Self {
        OptionTexts {
            name: name.to_string(),
            with_context: name.to_string(),
            name_stems: content_stems(name),
            context_stems: Vec::new(),
            trigrams: trigrams(name),
        }
    }
}

/// Computes the features of `description` over `candidates` (their texts in `texts`, the
/// hand-written scorer's probabilities in `lexical`, same order; see
/// [`super::super::lexical_probabilities`]). `Err` when the encoder fails.
pub fn compute(
    description: &str,
    tree: &ScreenTree,
    candidates: &[Candidate<'_>],
    texts: &[&OptionTexts],
    lexical: &[f64],
    encoder: &dyn Encoder,
) -> Result<Features, String> {
    let n = candidates.len();
    if lexical.len() != n {
        return Err(format!(
            "{} lexical probabilities for {n} options",
            lexical.len()
        ));
    }
    let lex_max = lexical.iter().copied().fold(0.0f64, f64::max);
    let lex_best = lexical.iter().position(|&p| p == lex_max);
    let q = encoder.query(description)?;
    let mut passages: Vec<&str> = Vec::with_capacity(2 * n);
    for t in texts {
        passages.push(&t.name);
        passages.push(&t.with_context);
    }
    let embedded = encoder.passages(&passages)?;
    let cos_name: Vec<f32> = (0..n).map(|c| dot(&q, &embedded[2 * c])).collect();
    let cos_ctx: Vec<f32> = (0..n).map(|c| dot(&q, &embedded[2 * c + 1])).collect();
    let max_of = |v: &[f32]| v.iter().copied().fold(f32::MIN, f32::max);
    let (max_name, max_ctx) = (max_of(&cos_name), max_of(&cos_ctx));
    let second_name = {
        let mut s = cos_name.clone();
        s.sort_unstable_by(|a, b| b.total_cmp(a));
        s.get(1).copied().unwrap_or(max_name)
    };
    let top_name = cos_name.iter().position(|&c| c == max_name);
    let top_ctx = cos_ctx.iter().position(|&c| c == max_ctx);

    let desc_stems = content_stems(description);
    let desc_trigrams = {
        let content: Vec<String> = {
            let folded = words::fold(description);
            words::words(&folded)
                .into_iter()
                .filter(|w| !words::STOPWORDS.contains(w))
                .map(str::to_string)
                .collect()
        };
        trigrams(&content.join(" "))
    };
    let position = words::position(description);
    let asked: Vec<Asked> = words::states(description);

    // Groups for positions: same role and name; same kind.
    let mut by_name: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    let mut by_kind: HashMap<String, Vec<usize>> = HashMap::new();
    for (c, cand) in candidates.iter().enumerate() {
        by_name
            .entry((cand.node.role.as_str(), cand.node.name.as_str()))
            .or_default()
            .push(c);
        let key = match cand.index {
            Some(i) => kind_key(tree, i),
            None => cand.node.role.to_string(),
        };
        by_kind.entry(key).or_default().push(c);
    }
    let mut pos_name = vec![0.0f32; n];
    let mut pos_kind = vec![0.0f32; n];
    let mut same_name = vec![1usize; n];
    for group in by_name.values() {
        for (k, &c) in group.iter().enumerate() {
            same_name[c] = group.len();
            if let Some(p) = position
                && group.len() > 1
                && at_position(p, k + 1, group.len())
            {
                pos_name[c] = 1.0;
            }
        }
    }
    for group in by_kind.values() {
        for (k, &c) in group.iter().enumerate() {
            if let Some(p) = position
                && group.len() > 1
                && at_position(p, k + 1, group.len())
            {
                pos_kind[c] = 1.0;
            }
        }
    }

    let mut options = Vec::with_capacity(n);
    let mut max_desc_in_name = 0.0f32;
    let mut state_met = false;
    for (c, cand) in candidates.iter().enumerate() {
        let t = texts[c];
        let node = cand.node;
        let mut state_match = 0.0f32;
        for a in &asked {
            if applies(a.state, &node.role) || holds(a.state, node.state) {
                let met = holds(a.state, node.state) == a.holds;
                state_match += if met { 1.0 } else { -1.0 };
                state_met |= met;
            }
        }
        let desc_in_name = share_in(&desc_stems, &t.name_stems);
        max_desc_in_name = max_desc_in_name.max(desc_in_name);
        let desc_in_ctx = if desc_stems.is_empty() {
            0.0
        } else {
            desc_stems
                .iter()
                .filter(|w| !t.name_stems.contains(w) && t.context_stems.contains(w))
                .count() as f32
                / desc_stems.len() as f32
        };
        let value_stems = content_stems(&node.value);
        let mut row = [0.0f32; FEATURES];
        row[0] = cos_name[c];
        row[1] = cos_name[c] - max_name;
        row[2] = cos_ctx[c];
        row[3] = cos_ctx[c] - max_ctx;
        row[4] = f32::from(top_name == Some(c));
        row[5] = f32::from(top_ctx == Some(c));
        row[6] = share_in(&t.name_stems, &desc_stems);
        row[7] = desc_in_name;
        row[8] = desc_in_ctx;
        row[9] = dice(&desc_trigrams, &t.trigrams);
        row[10] = (same_name[c] as f32).ln();
        row[11] = pos_name[c];
        row[12] = pos_kind[c];
        row[13] = f32::from(position.is_some());
        row[14] = state_match;
        row[15 + role_class(&node.role)] = 1.0;
        row[21] = f32::from(node.state & state::OFFSCREEN != 0);
        row[22] = share_in(&desc_stems, &value_stems);
        row[23] = (t.name_stems.len() as f32).min(8.0) / 8.0;
        row[24] = if top_name == Some(c) {
            max_name - second_name
        } else {
            0.0
        };
        row[25] = lexical[c] as f32;
        row[26] = (((lexical[c].max(1e-9) / lex_max.max(1e-9)).ln()).max(-10.0) / 10.0) as f32;
        row[27] = f32::from(lex_best == Some(c));
        options.push(row);
    }
    let position_unmatched =
        position.is_some() && !pos_name.iter().chain(&pos_kind).any(|&p| p > 0.0);
    let none = [
        1.0,
        if n == 0 { 0.0 } else { max_name },
        if n == 0 { 0.0 } else { max_ctx },
        max_desc_in_name,
        f32::from(position_unmatched),
        f32::from(!asked.is_empty() && !state_met),
        ((n.max(1)) as f32).ln(),
        lex_max as f32,
    ];
    Ok(Features { options, none })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use hark_rtvi::A11ySnapshot;
    use serde_json::json;

    use super::*;

    /// An encoder with no model: every text embeds to the same vector, so only the
    /// structural features differ between options.
    struct Flat;

    impl Encoder for Flat {
        fn query(&self, _: &str) -> Result<Vec<f32>, String> {
            Ok(vec![1.0, 0.0])
        }
        fn passages(&self, texts: &[&str]) -> Result<Vec<Arc<[f32]>>, String> {
            Ok(texts.iter().map(|_| Arc::from(vec![1.0f32, 0.0])).collect())
        }
    }

    /// An inbox: three rows, each a sender, a subject link and a Reply button; a checkbox.
    fn inbox() -> ScreenTree {
        let row = |i: usize, from: &str, subject: &str| {
            json!({"ref": format!("r{i}"), "role": "listitem", "children": [
                {"ref": "", "role": "text", "name": from},
                {"ref": format!("s{i}"), "role": "link", "name": subject},
                {"ref": format!("b{i}"), "role": "button", "name": "Reply"},
            ]})
        };
        let snapshot: A11ySnapshot = serde_json::from_value(json!({
            "root": {"ref": "e0", "role": "main", "children": [
                {"ref": "l", "role": "list", "name": "Inbox", "children": [
                    row(1, "Sarah Connor", "Lunch on Friday"),
                    row(2, "Miguel Ángel", "Factura de marzo"),
                    row(3, "Anne Dupont", "Réunion"),
                ]},
                {"ref": "c1", "role": "checkbox", "name": "Desayuno incluido"},
                {"ref": "c2", "role": "checkbox", "name": "Cena incluida", "state": ["checked"]},
            ]},
            "captured_at": 0
        }))
        .unwrap();
        ScreenTree::from_snapshot(&snapshot)
    }

    fn features_of(tree: &ScreenTree, description: &str, refs: &[&str]) -> Features {
        let lexical = vec![1.0 / refs.len() as f64; refs.len()];
        features_with(tree, description, refs, &lexical)
    }

    fn features_with(
        tree: &ScreenTree,
        description: &str,
        refs: &[&str],
        lexical: &[f64],
    ) -> Features {
        let children = tree.children();
        let at: Vec<usize> = refs.iter().map(|r| tree.by_ref[*r]).collect();
        let texts: Vec<OptionTexts> = at
            .iter()
            .map(|&i| OptionTexts::of(tree, &children, i))
            .collect();
        let candidates: Vec<Candidate<'_>> = at
            .iter()
            .map(|&i| Candidate {
                node: &tree.nodes[i],
                index: Some(i),
            })
            .collect();
        let text_refs: Vec<&OptionTexts> = texts.iter().collect();
        compute(description, tree, &candidates, &text_refs, lexical, &Flat).unwrap()
    }

    fn column(f: &Features, name: &str) -> Vec<f32> {
        let k = FEATURE_NAMES.iter().position(|n| *n == name).unwrap();
        f.options.iter().map(|r| r[k]).collect()
    }

    #[test]
    fn a_row_is_the_context_of_its_controls() {
        let tree = inbox();
        let children = tree.children();
        let reply2 = tree.by_ref["b2"];
        assert_eq!(
            context_text(&tree, &children, reply2),
            "Miguel Ángel Factura de marzo | Inbox"
        );
        let t = OptionTexts::of(&tree, &children, reply2);
        assert_eq!(
            t.with_context,
            "Reply — Miguel Ángel Factura de marzo | Inbox"
        );
    }

    #[test]
    fn a_position_marks_the_like_element_at_it() {
        let tree = inbox();
        let opts = ["b1", "b2", "b3", "s1", "s2", "s3"];
        let f = features_of(&tree, "responde al segundo", &opts);
        assert_eq!(column(&f, "position_same_name"), [0., 1., 0., 0., 0., 0.]);
        assert_eq!(column(&f, "position_same_kind"), [0., 1., 0., 0., 1., 0.]);
        assert!(column(&f, "position_asked").iter().all(|&v| v == 1.0));
        let last = features_of(&tree, "der letzte", &opts);
        assert_eq!(
            column(&last, "position_same_name"),
            [0., 0., 1., 0., 0., 0.]
        );
        // Past the end: no option is at the position, and "nothing fits" knows it.
        let past = features_of(&tree, "the fifth reply button", &opts);
        assert!(
            column(&past, "position_same_name")
                .iter()
                .all(|&v| v == 0.0)
        );
        assert_eq!(past.none[4], 1.0);
    }

    #[test]
    fn a_state_asked_is_met_or_not_per_option() {
        let tree = inbox();
        let f = features_of(&tree, "la casilla sin marcar", &["c1", "c2", "b1"]);
        assert_eq!(column(&f, "state_match"), [1., -1., 0.]);
        assert_eq!(f.none[5], 0.0);
    }

    #[test]
    fn words_shared_with_a_name_count_across_accents_and_inflection() {
        let tree = inbox();
        let f = features_of(&tree, "marca la casilla del desayuno", &["c1", "c2"]);
        let in_name = column(&f, "desc_in_name");
        assert!(in_name[0] > in_name[1], "{in_name:?}");
        let r = features_of(&tree, "reunion", &["s1", "s2", "s3"]);
        assert_eq!(column(&r, "name_covered"), [0., 0., 1.]);
    }

    #[test]
    fn the_hand_written_scorer_comes_in_as_three_features() {
        let tree = inbox();
        let f = features_with(
            &tree,
            "reply to Sarah",
            &["b1", "b2", "b3"],
            &[0.7, 0.2, 0.1],
        );
        assert_eq!(column(&f, "lex_prob"), [0.7, 0.2, 0.1]);
        assert_eq!(column(&f, "lex_best"), [1., 0., 0.]);
        let rel = column(&f, "lex_log_rel");
        assert_eq!(rel[0], 0.0);
        assert!(
            (rel[1] - (0.2f32 / 0.7).ln() / 10.0).abs() < 1e-6,
            "{rel:?}"
        );
        let k = NONE_FEATURE_NAMES
            .iter()
            .position(|n| *n == "lex_max")
            .unwrap();
        assert_eq!(f.none[k], 0.7);
        // A probability of zero is floored, not -inf.
        let zero = features_with(&tree, "reply", &["b1", "b2"], &[1.0, 0.0]);
        assert_eq!(column(&zero, "lex_log_rel"), [0.0, -1.0]);
    }

    #[test]
    fn lexical_probabilities_must_match_the_options() {
        let tree = inbox();
        let children = tree.children();
        let i = tree.by_ref["b1"];
        let texts = [OptionTexts::of(&tree, &children, i)];
        let candidates = [Candidate {
            node: &tree.nodes[i],
            index: Some(i),
        }];
        let err = compute(
            "reply",
            &tree,
            &candidates,
            &[&texts[0]],
            &[0.5, 0.5],
            &Flat,
        )
        .unwrap_err();
        assert_eq!(err, "2 lexical probabilities for 1 options");
    }
}
