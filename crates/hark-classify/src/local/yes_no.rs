//! Yes/no about the screen: `check_screen`'s questions, `select_elements`' per-element
//! questions and `should_respond`, read from the tree (the UI worker's screen questions).
//!
//! `check_screen` kinds, tried in order ([`read_check`]):
//! 1. quantified state: "is anything on the list still unchecked?", "are all boxes checked?",
//!    "is nothing selected?" — any / all / none over the elements the state applies to, narrowed
//!    by role words and containers;
//! 2. an element's value: "does the email field have a value?" (filled), "is X empty?";
//! 3. an element's state: "is the pay button disabled?", "is Gift wrap checked?";
//! 4. what an element shows: "does the total show 42 EUR?", "is country set to Spain?";
//! 5. presence: "is there a checkout button?", "is Pay now on screen?", "do you see X?".
//!
//! Anything else is [`Unreadable`]: the caller turns it into a `ClassifierError` so the worker
//! can fall back to its LLM classifier.

use super::calibration::{CHOICE, TREE_NO, TREE_YES, sigmoid};
use super::choice::{Candidate, Query, score, state_holds};
use super::lexicon::{StateWord, roles};
use super::text::{canonical, join_phrases, tokenize, words};
use super::tree::{Node, ScreenTree, state};

/// The question could not be read; the caller words the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable;

const ANY: &[&str] = &["any", "anything", "anyone", "something", "some", "still"];
const ALL: &[&str] = &["all", "every", "everything", "each"];
const NONE: &[&str] = &["none", "nothing", "no"];
const PRESENCE: &[&str] = &[
    "visible",
    "shown",
    "displayed",
    "showing",
    "present",
    "exist",
    "exists",
    "see",
    "there",
    "available",
    "listed",
];
const VALUE_VERBS: &[&str] = &[
    " show ",
    " shows ",
    " say ",
    " says ",
    " read ",
    " reads ",
    " contain ",
    " contains ",
    " display ",
    " displays ",
    " set to ",
    " equal to ",
    " equals ",
];

/// P(yes) for a `check_screen` question about `tree`.
///
/// # Errors
/// [`Unreadable`] when the question is none of the kinds in the module docs.
pub fn read_check(question: &str, tree: &ScreenTree) -> Result<f64, Unreadable> {
    let lower = on_off_as_checked(&question.to_lowercase());
    let raw = join_phrases(words(&lower));
    let query = Query::parse(&lower);
    let has = |list: &[&str]| raw.iter().any(|w| list.contains(&w.as_str()));
    let says_value = raw
        .windows(2)
        .any(|w| matches!(w[0].as_str(), "a" | "any") && w[1] == "value")
        && has(&["have", "has", "show", "shows", "contain", "contains"]);

    // 1. Quantified state.
    if let Some(&sw) = query.states.first()
        && (has(ANY) || has(ALL) || has(NONE))
    {
        let in_scope: Vec<&Node> = tree
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| super::choice::state_applies(sw, n))
            .filter(|(_, n)| query.roles.is_empty() || query.roles.contains(&n.role.as_str()))
            .filter(|(i, _)| {
                query.containers.iter().all(|c| {
                    tree.nodes.iter().enumerate().any(|(a, an)| {
                        c.roles.contains(&an.role.as_str()) && tree.is_descendant(*i, a)
                    })
                })
            })
            .map(|(_, n)| n)
            .collect();
        let holds = |n: &&Node| state_holds(sw, n);
        let yes = if has(ALL) && !has(ANY) {
            !in_scope.is_empty() && in_scope.iter().all(holds)
        } else if has(NONE) && !has(ANY) {
            !in_scope.iter().any(holds)
        } else {
            in_scope.iter().any(holds)
        };
        return Ok(if yes { TREE_YES } else { TREE_NO });
    }

    // 2 and 3. An element's value or state.
    let element_state = if says_value {
        Some(if has(&["no", "without"]) {
            StateWord::Empty
        } else {
            StateWord::Filled
        })
    } else {
        query.states.first().copied()
    };
    if let Some(sw) = element_state {
        let mut subject = query.clone();
        subject.states.clear();
        subject
            .content
            .retain(|(w, _)| !matches!(w.as_str(), "value" | "have" | "has" | "no" | "without"));
        // "Is Spain selected?": the value a dropdown or field holds is the option chosen.
        if matches!(sw, StateWord::Selected | StateWord::Checked)
            && let Some(p) = chosen_value(&subject, tree)
        {
            return Ok(p);
        }
        let (node, confidence) = find(&subject, tree).ok_or(Unreadable)?;
        let sw = toggle_state(sw, node);
        let holds = match sw {
            // "Is the cart empty?": a thing that holds items, not a field with a value.
            StateWord::Empty | StateWord::Filled if !super::choice::state_applies(sw, node) => {
                holds_nothing(&subject, node, tree)
                    .is_some_and(|empty| empty == (sw == StateWord::Empty))
            }
            _ => state_holds(sw, node),
        };
        let p = if holds { TREE_YES } else { TREE_NO };
        return Ok(confidence * p + (1.0 - confidence) * TREE_NO);
    }

    // 4. What an element shows.
    let padded = format!(" {} ", lower.trim_end_matches(['?', '.', '!']).trim());
    if let Some((verb_at, verb)) = VALUE_VERBS
        .iter()
        .filter_map(|v| padded.find(v).map(|at| (at, *v)))
        .min_by_key(|(at, _)| *at)
    {
        let subject_text = &padded[..verb_at];
        let expected_text = padded[verb_at + verb.len()..].trim_matches([' ', '"', '\'']);
        let expected: Vec<String> = tokenize(expected_text)
            .into_iter()
            .filter(|t| !t.stop)
            .map(|t| t.word)
            .collect();
        if expected.is_empty() {
            return Err(Unreadable);
        }
        let subject = Query::parse(subject_text);
        let whole_screen = !subject.has_content() && subject.roles.is_empty();
        if whole_screen {
            // "does the page show X": presence of X.
            return presence(&Query::parse(expected_text), tree, false);
        }
        let (node, confidence) = find(&subject, tree).ok_or(Unreadable)?;
        let shows = expected.iter().all(|w| {
            node.value_tokens
                .iter()
                .chain(&node.name_tokens)
                .any(|t| &t.word == w)
        });
        let p = if shows { TREE_YES } else { TREE_NO };
        return Ok(confidence * p + (1.0 - confidence) * TREE_NO);
    }

    // 5. Presence.
    if has(PRESENCE) || lower.contains("on screen") || lower.contains("on the screen") {
        let mut subject = query.clone();
        subject
            .content
            .retain(|(w, _)| !PRESENCE.contains(&w.as_str()) && canonical(w) != "visible");
        return presence(&subject, tree, has(&["visible"]));
    }
    // 6. "Is the country Spain?": a field named by the first words, holding the rest.
    field_holds(&padded, tree).ok_or(Unreadable)
}

/// Roles whose value is something the user typed or chose.
const VALUE_ROLES: &[&str] = &[
    "textbox",
    "searchbox",
    "combobox",
    "spinbutton",
    "slider",
    "listbox",
];

/// The best-named input element for `subject` and its match confidence, when one is named well
/// enough (confidence ≥ 0.5).
fn named_input<'t>(subject: &Query, tree: &'t ScreenTree) -> Option<(&'t Node, f64)> {
    let (node, confidence) = find(subject, tree)?;
    (VALUE_ROLES.contains(&node.role.as_str()) && confidence >= 0.5).then_some((node, confidence))
}

/// Whether every word of `expected` is among the node's value words.
fn value_has(node: &Node, expected: &[String]) -> bool {
    !expected.is_empty()
        && expected
            .iter()
            .all(|w| node.value_tokens.iter().any(|t| &t.word == w))
}

/// "Is Spain selected?": P(yes) when `subject` is the value an input element holds (a dropdown's
/// chosen option, a field's text); `None` when no input element holds it, so the question is
/// read as one about an element named so.
fn chosen_value(subject: &Query, tree: &ScreenTree) -> Option<f64> {
    let expected: Vec<String> = subject
        .content
        .iter()
        .filter(|(_, weight)| *weight >= 1.0)
        .map(|(w, _)| w.clone())
        .collect();
    tree.nodes
        .iter()
        .any(|n| VALUE_ROLES.contains(&n.role.as_str()) && value_has(n, &expected))
        .then_some(TREE_YES)
}

/// "Is the country Spain?", "is the email ana@example.com?": after "is"/"are", the first words
/// name an input element and the rest are its value. P(yes) when the element named holds those
/// words, P(no) when it holds something else; `None` when no split names an input element.
fn field_holds(padded: &str, tree: &ScreenTree) -> Option<f64> {
    let body = padded.trim();
    let rest = ["is ", "are "]
        .iter()
        .find_map(|verb| body.strip_prefix(verb))?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut named = None;
    for split in 1..words.len() {
        let subject = Query::parse(&words[..split].join(" "));
        if !subject.has_content() {
            continue;
        }
        let Some((node, confidence)) = named_input(&subject, tree) else {
            continue;
        };
        let expected: Vec<String> = tokenize(&words[split..].join(" "))
            .into_iter()
            .filter(|t| !t.stop)
            .map(|t| t.word)
            .collect();
        if value_has(node, &expected) {
            return Some(confidence * TREE_YES + (1.0 - confidence) * TREE_NO);
        }
        named.get_or_insert(TREE_NO);
    }
    named
}

/// Words a line uses to say that a thing holds nothing ("Your cart is empty.", "No items in
/// your basket", "Nothing in your bag yet").
const SAYS_EMPTY: &[&str] = &["empty", "no", "nothing", "zero"];

/// Whether a thing that holds items (a cart, an inbox, a list) holds nothing, from what the
/// screen says of it: a count in the name of the element found ("Cart (0)", "Inbox 3"), or a
/// line that names it with a word of emptiness ("Your cart is empty."). `None` when the screen
/// says neither (the question is then answered no, as for any state that does not apply).
fn holds_nothing(subject: &Query, node: &Node, tree: &ScreenTree) -> Option<bool> {
    if let Some(count) = node
        .name_tokens
        .iter()
        .find_map(|t| t.word.parse::<u64>().ok())
    {
        return Some(count == 0);
    }
    let named: Vec<&str> = subject
        .content
        .iter()
        .filter(|(_, weight)| *weight >= 1.0)
        .map(|(word, _)| word.as_str())
        .collect();
    if named.is_empty() {
        return None;
    }
    let says_empty = tree.nodes.iter().any(|n| {
        let has = |w: &str| n.name_tokens.iter().any(|t| t.word == w);
        named.iter().all(|w| has(w)) && SAYS_EMPTY.iter().any(|w| has(w))
    });
    says_empty.then_some(true)
}

/// Verbs before a last "on" / "off" that make it a switch's state ("is it turned on?").
const SWITCH_VERBS: &[&str] = &["turned", "switched", "toggled", "ticked", "flipped", "set"];
/// Words before a last "on" that make it a preposition, not a state ("what can I click on?").
const NOT_A_STATE: &[&str] = &[
    "click", "tap", "press", "based", "depend", "depends", "rely", "focus", "log", "sign", "go",
    "carry", "put", "try", "hover", "count", "sit", "sits", "work", "works", "keep", "move",
];

/// A switch's state said as "on" / "off" is a checkbox's state, read as "checked" /
/// "unchecked": "is gift wrap on?", "is dark mode turned off?", "is it set to on?", "are the
/// notifications switched on?". Only a last "on" / "off" of a state question (it starts with
/// a form of "be", or the word before is a verb of switching); "what can I click on?" and "is
/// Pay now on screen?" are left as they are. `lower` is the lowercased question; the offline
/// parser does the same for its texts (`offline::parse`), so both paths read alike.
pub fn on_off_as_checked(lower: &str) -> String {
    let body = lower.trim().trim_end_matches(['?', '.', '!', ' ']);
    let ws: Vec<&str> = body.split_whitespace().collect();
    let Some((&last, rest)) = ws.split_last() else {
        return lower.to_string();
    };
    let word = match last {
        "on" => "checked",
        "off" => "unchecked",
        _ => return lower.to_string(),
    };
    let mut keep = rest.len();
    // "set to on", "turned on", "switched off".
    if keep >= 2 && rest[keep - 1] == "to" && rest[keep - 2] == "set" {
        keep -= 2;
    } else if keep >= 1 && SWITCH_VERBS.contains(&rest[keep - 1]) {
        keep -= 1;
    } else {
        let state_question = matches!(
            rest.first().copied(),
            Some("is" | "are" | "was" | "were" | "isn't" | "aren't")
        );
        let before = rest.last().copied().unwrap_or("");
        if !state_question || keep < 2 || NOT_A_STATE.contains(&before) {
            return lower.to_string();
        }
    }
    let mut out = rest[..keep].join(" ");
    out.push(' ');
    out.push_str(word);
    out.push('?');
    out
}

/// A checkbox or switch asked "enabled" / "disabled" means on / off ("is gift wrap
/// enabled?", "is dark mode disabled?") unless it is greyed out itself: then the question is
/// about that, and the word keeps its meaning. Other elements keep the word's meaning ("is the
/// pay button disabled?").
fn toggle_state(word: StateWord, node: &Node) -> StateWord {
    let toggle = matches!(
        node.role.as_str(),
        "checkbox" | "switch" | "menuitemcheckbox"
    );
    match word {
        StateWord::Enabled if toggle && !node.has(state::DISABLED) => StateWord::Checked,
        StateWord::Disabled if toggle && !node.has(state::DISABLED) => StateWord::Unchecked,
        other => other,
    }
}

/// P(something matching `subject` is on screen): the calibrated confidence of the best match
/// among all named nodes (text without a ref included); `visible` discounts an offscreen one.
fn presence(subject: &Query, tree: &ScreenTree, visible: bool) -> Result<f64, Unreadable> {
    if !subject.has_content() && subject.roles.is_empty() {
        return Err(Unreadable);
    }
    let Some((node, confidence)) = find(subject, tree) else {
        return Ok(TREE_NO);
    };
    if subject.has_content() && !matches_content(subject, node) {
        // Only a role word matched ("the newsletter checkbox" against "Gift wrap").
        return Ok(TREE_NO);
    }
    let confidence = confidence.clamp(TREE_NO, TREE_YES);
    Ok(if visible && node.has(state::OFFSCREEN) {
        confidence * 0.3
    } else {
        confidence
    })
}

/// Whether every full-weight content word of `query` matches the node's name, value or
/// context.
fn matches_content(query: &Query, node: &Node) -> bool {
    query
        .content
        .iter()
        .filter(|(_, weight)| *weight >= 1.0)
        .all(|(w, _)| {
            node.name_tokens
                .iter()
                .chain(&node.value_tokens)
                .chain(&node.context_tokens)
                .any(|t| super::text::similarity(w, &t.word) > 0.0)
        })
}

/// The named node `query` most likely means and the calibrated confidence; `None` when the
/// screen has no named node.
fn find<'t>(query: &Query, tree: &'t ScreenTree) -> Option<(&'t Node, f64)> {
    let candidates: Vec<Candidate<'t>> = tree
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| !n.name.is_empty())
        .map(|(i, node)| Candidate {
            node,
            index: Some(i),
        })
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let scored = score(query, tree, &candidates, None);
    Some((
        candidates[scored.best].node,
        CHOICE.probability(&scored.features),
    ))
}

/// One `select_elements` question read back: `{criteria}: does {role} "{name}" match?`
/// (pipecat's words) → `(criteria, role, name)`.
pub fn parse_select_question(text: &str) -> Option<(&str, &str, &str)> {
    let body = text.strip_suffix("\" match?")?;
    let at = body.rfind(": does ")?;
    let criteria = &body[..at];
    let rest = &body[at + ": does ".len()..];
    let (role, name) = rest.split_once(" \"")?;
    Some((criteria, role, name))
}

/// A number comparison in select criteria: "under $5", "more than 3", "at least 10".
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Comparison {
    /// Strictly less than.
    Below(f64),
    /// At most.
    AtMost(f64),
    /// Strictly more than.
    Above(f64),
    /// At least.
    AtLeast(f64),
}

/// The comparison in `criteria`, if any, and the criteria without it.
pub fn parse_comparison(criteria: &str) -> (Option<Comparison>, String) {
    type Make = fn(f64) -> Comparison;
    const OPS: &[(&str, Make)] = &[
        ("less than or equal to", Comparison::AtMost),
        ("at most", Comparison::AtMost),
        ("no more than", Comparison::AtMost),
        ("up to", Comparison::AtMost),
        ("at least", Comparison::AtLeast),
        ("no less than", Comparison::AtLeast),
        ("cheaper than", Comparison::Below),
        ("less than", Comparison::Below),
        ("fewer than", Comparison::Below),
        ("lower than", Comparison::Below),
        ("under", Comparison::Below),
        ("below", Comparison::Below),
        ("more expensive than", Comparison::Above),
        ("more than", Comparison::Above),
        ("greater than", Comparison::Above),
        ("higher than", Comparison::Above),
        ("over", Comparison::Above),
        ("above", Comparison::Above),
    ];
    let lower = criteria.to_lowercase();
    for (op, make) in OPS {
        let Some(at) = lower.find(&format!("{op} ")) else {
            continue;
        };
        if at > 0 && lower.as_bytes()[at - 1].is_ascii_alphanumeric() {
            continue;
        }
        let after = &lower[at + op.len() + 1..];
        let num_text: String = after
            .trim_start_matches(['$', '€', '£', ' '])
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            .filter(|c| *c != ',')
            .collect();
        if let Ok(n) = num_text.trim_end_matches('.').parse::<f64>() {
            let end = at
                + op.len()
                + 1
                + (after.len() - after.trim_start_matches(['$', '€', '£', ' ']).len())
                + num_text.len();
            let rest = format!("{} {}", &lower[..at], lower.get(end..).unwrap_or(""));
            return (Some(make(n)), rest);
        }
    }
    (None, lower)
}

/// The first number in the node's name, value or context.
pub fn node_number(node: &Node) -> Option<f64> {
    node.name_tokens
        .iter()
        .chain(&node.value_tokens)
        .chain(&node.context_tokens)
        .find_map(|t| t.word.parse::<f64>().ok())
}

impl Comparison {
    /// Whether `x` satisfies the comparison.
    pub fn holds(self, x: f64) -> bool {
        match self {
            Comparison::Below(n) => x < n,
            Comparison::AtMost(n) => x <= n,
            Comparison::Above(n) => x > n,
            Comparison::AtLeast(n) => x >= n,
        }
    }
}

/// P(match) for each candidate against select criteria: `sigmoid(2·(score − 0.5))` from the
/// choice scorer, capped at 0.15 when a role, state, container or number constraint fails, or
/// when the criteria have content words and none of them is in the element's own name or
/// value ([`own_words_match`]).
///
/// The scorer's score is made for *choosing*: it counts a word found only in an element's
/// context (a sibling's name, an ancestor's) at 0.6, which ranks well among options but, read
/// as an absolute probability, made every element of a small page match ("the cart" gave "Log
/// in" 0.998 because "Cart (2)" sits beside it). Context still adds to an element whose own
/// words match ("the mug's add to cart button"), and still gives its number to a comparison
/// ("items under $5": the price beside a "Remove" button).
///
/// # Errors
/// [`Unreadable`] when the criteria name nothing the scorer can use (no content, role, state,
/// container or comparison).
pub fn select_probabilities(
    criteria: &str,
    tree: &ScreenTree,
    candidates: &[Candidate<'_>],
) -> Result<Vec<f64>, Unreadable> {
    let (comparison, rest) = parse_comparison(criteria);
    let mut query = Query::parse(&class_words(&rest));
    // Criteria name a class of elements: "all the buttons" is the buttons, "all" no word an
    // element's name must hold.
    query.content.retain(|(w, _)| {
        !ALL.contains(&w.as_str()) && !ANY.contains(&w.as_str()) && w.as_str() != "both"
    });
    // "items under $5", "results about X": a generic noun, not a role ("links" and "rows",
    // which name one role each, stay roles).
    let generic = |class: &[&str]| {
        class.len() == query.roles.len() && class.iter().all(|r| query.roles.contains(r))
    };
    if !query.roles.is_empty() && (generic(roles::ITEM) || generic(roles::RESULT)) {
        query.roles.clear();
        query.containers.clear();
    }
    if !query.has_content()
        && query.roles.is_empty()
        && query.states.is_empty()
        && query.containers.is_empty()
        && comparison.is_none()
    {
        return Err(Unreadable);
    }
    let scored = score(&query, tree, candidates, None);
    Ok(candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut s = scored.scores[i];
            let mut ok = scored.ok[i] && (!query.has_content() || own_words_match(&query, c.node));
            if let Some(cmp) = comparison {
                if node_number(c.node).is_some_and(|x| cmp.holds(x)) {
                    s += 1.0;
                } else {
                    ok = false;
                }
            }
            let p = sigmoid(2.0 * (s - 0.5));
            if ok { p } else { p.min(0.15) }
        })
        .collect())
}

/// Select criteria name a class of elements, so a plural that is kept whole elsewhere because
/// it is often a control's own name ("Options", a menu) is the role it names here when no other
/// word names one: "options" reads as "option" (every option), as "buttons" reads as "button";
/// "the options button" stays the button named Options.
fn class_words(criteria: &str) -> String {
    // "radio buttons", "check boxes": one role each, not a radio and a button.
    let lower = criteria.to_lowercase();
    let criteria = [
        ("radio buttons", "radios"),
        ("radio button", "radio"),
        ("check boxes", "checkboxes"),
        ("check box", "checkbox"),
    ]
    .iter()
    .fold(lower, |text, (compound, role)| text.replace(compound, role));
    let words: Vec<&str> = criteria.split(' ').collect();
    let plural_role = |w: &str| w.eq_ignore_ascii_case("options");
    if words
        .iter()
        .any(|w| !plural_role(w) && super::choice::role_word(&w.to_lowercase()).is_some())
    {
        return criteria.clone();
    }
    words
        .iter()
        .map(|w| if plural_role(w) { "option" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether some content word of `query` (its full-weight ones, or all when it has none of
/// those; quoted words too) is in the node's own name or value, not only its context.
pub fn own_words_match(query: &Query, node: &Node) -> bool {
    let full = query.content.iter().any(|(_, w)| *w >= 1.0);
    let own = |w: &str| {
        node.name_tokens
            .iter()
            .chain(&node.value_tokens)
            .any(|t| super::text::similarity(w, &t.word) > 0.0)
    };
    query
        .content
        .iter()
        .filter(|(_, weight)| !full || *weight >= 1.0)
        .any(|(w, _)| own(w))
        || query.quoted.iter().flatten().any(|w| own(w))
}

/// `should_respond`'s rule: P(yes) from the event's name and payload keys. Navigation, route,
/// submit, order, sign-in and error events → 0.8; scroll, hover, input, edit, focus and
/// selection events → 0.2; a plain click → 0.3; anything else → 0.4.
pub fn should_respond(event_name: &str, payload_keys: &[&str]) -> f64 {
    const YES: &[&str] = &[
        "nav",
        "navigate",
        "navigation",
        "navigated",
        "route",
        "routed",
        "page",
        "view",
        "submit",
        "submitted",
        "order",
        "ordered",
        "checkout",
        "purchase",
        "buy",
        "pay",
        "payment",
        "login",
        "logout",
        "signup",
        "signin",
        "error",
        "failed",
        "fail",
        "help",
        "complete",
        "completed",
        "done",
        "finish",
        "finished",
        "search",
        "cart",
    ];
    const NO: &[&str] = &[
        "scroll",
        "scrolled",
        "hover",
        "hovered",
        "mouse",
        "move",
        "moved",
        "input",
        "change",
        "changed",
        "edit",
        "edited",
        "type",
        "typed",
        "typing",
        "key",
        "keydown",
        "keyup",
        "keypress",
        "focus",
        "blur",
        "resize",
        "selection",
        "selectionchange",
        "visibility",
    ];
    // Split snake_case, kebab-case and camelCase.
    let mut spaced = String::new();
    let mut prev_lower = false;
    for c in event_name.chars() {
        if c.is_uppercase() && prev_lower {
            spaced.push(' ');
        }
        prev_lower = c.is_lowercase();
        spaced.push(c);
    }
    let ws: Vec<String> = words(&spaced);
    let has = |list: &[&str]| ws.iter().any(|w| list.contains(&w.as_str()));
    if has(NO) {
        0.2
    } else if has(YES) {
        0.8
    } else if payload_keys
        .iter()
        .any(|k| matches!(*k, "view" | "route" | "page" | "url" | "path"))
    {
        0.75
    } else if has(&["click", "clicked", "tap", "press", "pressed"]) {
        0.3
    } else {
        0.4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_select_questions_and_comparisons() {
        assert_eq!(
            parse_select_question("dairy products: does button \"Add \"Milk\"\" match?"),
            Some(("dairy products", "button", "Add \"Milk\""))
        );
        assert_eq!(parse_select_question("what?"), None);
        let (cmp, rest) = parse_comparison("items under $5");
        assert_eq!(cmp, Some(Comparison::Below(5.0)));
        assert_eq!(rest.trim(), "items");
        assert_eq!(
            parse_comparison("at least 1,000 views").0,
            Some(Comparison::AtLeast(1000.0))
        );
        assert_eq!(parse_comparison("overview").0, None);
    }

    /// "Is the cart empty?" is about what the cart holds, not a field's value: read from a count
    /// in its name or a line saying it is empty (a new user's demo shop read 0.05 for "Your
    /// cart is empty." and "Cart (0)").
    #[test]
    fn a_thing_that_holds_items_is_empty_by_its_count_or_a_line_saying_so() {
        let screen = |body: &str| ScreenTree::parse(&format!("<ui_state>\n{body}</ui_state>"));
        let counted = |n: u32| {
            screen(&format!(
                "- navigation [ref=e1]:\n  - link \"Cart ({n})\" [ref=e2]\n- button \"Checkout\" [ref=e3]\n"
            ))
        };
        let said = screen(
            "- link \"Cart\" [ref=e2]\n- heading \"Your cart\" [level=2] [ref=e3]\n- text \"Your cart is empty.\"\n",
        );
        let full = screen(
            "- link \"Cart\" [ref=e2]\n- heading \"Your cart\" [level=2] [ref=e3]\n- listitem \"Travel mug\" [ref=e4]\n",
        );
        let yes = |q: &str, tree: &ScreenTree| read_check(q, tree).unwrap() > 0.5;
        assert!(yes("is the cart empty?", &counted(0)));
        assert!(!yes("is the cart empty?", &counted(2)));
        assert!(yes("is the cart empty?", &said));
        assert!(!yes("is the cart empty?", &full));
        // A field keeps its own reading: empty is no value.
        let field = screen("- textbox \"Email\" [ref=e1]\n");
        assert!(yes("is the email field empty?", &field));
    }

    /// A dropdown's value is the option chosen: "is Spain selected?" and "is the country
    /// Spain?" read the Country combobox holding Spain (a new user got 0.05 and "cannot read
    /// the question").
    #[test]
    fn a_value_held_is_the_option_chosen() {
        let tree = ScreenTree::parse(
            "<ui_state>\n- combobox \"Country\" = \"Spain\" [ref=e1]\n- textbox \"Email\" = \"ana@example.com\" [ref=e2]\n- checkbox \"Gift wrap\" [ref=e3]\n</ui_state>",
        );
        let p = |q: &str| read_check(q, &tree);
        assert!(p("is Spain selected?").unwrap() > 0.5);
        assert!(p("is France selected?").unwrap() < 0.5);
        assert!(p("is the country Spain?").unwrap() > 0.5);
        assert!(p("is the country France?").unwrap() < 0.5);
        assert!(p("is the country set to Spain?").unwrap() > 0.5);
        assert!(p("is gift wrap checked?").unwrap() < 0.5);
        assert_eq!(p("is the weather nice?"), Err(Unreadable));
    }

    /// Select criteria a Pipecat `select_elements` call gives: a class of elements, with or
    /// without a quantifier ("options" found nothing among seven options, "all the buttons"
    /// nothing among two buttons).
    #[test]
    fn select_criteria_name_a_class_with_or_without_all() {
        let tree = ScreenTree::parse(
            "<ui_state>\n- listbox \"Size\" [ref=e1]:\n  - option \"Small\" [ref=e2]\n  - option \"Medium\" [selected] [ref=e3]\n  - option \"Large\" [ref=e4]\n- button \"Save\" [ref=e5]\n- button \"Cancel\" [ref=e6]\n- checkbox \"Gift wrap\" [ref=e7]\n- button \"Options\" [ref=e8]\n</ui_state>",
        );
        let candidates: Vec<Candidate> = tree
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.ref_.is_empty())
            .map(|(i, node)| Candidate {
                node,
                index: Some(i),
            })
            .collect();
        let picked = |criteria: &str| -> Vec<String> {
            select_probabilities(criteria, &tree, &candidates)
                .unwrap()
                .iter()
                .zip(&candidates)
                .filter(|(p, _)| **p > 0.5)
                .map(|(_, c)| c.node.name.clone())
                .collect()
        };
        for criteria in ["options", "the options", "all options", "every option"] {
            assert_eq!(picked(criteria), ["Small", "Medium", "Large"], "{criteria}");
        }
        for criteria in ["buttons", "all the buttons", "all buttons"] {
            assert_eq!(
                picked(criteria),
                ["Save", "Cancel", "Options"],
                "{criteria}"
            );
        }
        assert_eq!(picked("all the checkboxes"), ["Gift wrap"]);
        assert_eq!(picked("both check boxes"), ["Gift wrap"]);
        assert_eq!(picked("the radio buttons"), Vec::<String>::new());
        assert_eq!(picked("the options button"), ["Options"]);
    }

    #[test]
    fn should_respond_rule() {
        assert_eq!(should_respond("nav_click", &["view"]), 0.8);
        assert_eq!(should_respond("formSubmitted", &[]), 0.8);
        assert_eq!(should_respond("scroll", &[]), 0.2);
        assert_eq!(should_respond("input_changed", &[]), 0.2);
        assert_eq!(should_respond("button_click", &[]), 0.3);
    }
}
