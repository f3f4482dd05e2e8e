//! The verb parser of the offline screen mode: one English user text → one [`Intent`].
//!
//! The verb picks the action: click; show / where is → highlight and
//! scroll_to; type / enter / fill X into Y → fill; is / are …? → check; list / what … → list.
//! The element itself is left to the classifier: the parser only cuts the text into the
//! target description (and, for fill, the value) and keeps both as the user wrote them.
//!
//! Rules, tried in this order on the text without leading fillers ("please", "can you",
//! "ok,", …) and trailing ones ("please", "for me", final `.`/`!`/`?`):
//!
//! | text | intent |
//! | --- | --- |
//! | `help`, `hi`, `what can you do` | [`Intent::Help`] |
//! | `type`/`enter`/`write`/`put`/`input`/`fill [in]` VALUE `into`/`in`/`inside` TARGET | [`Intent::Fill`] |
//! | `fill [in/out]` TARGET `with`/`as` VALUE; `set`/`change` TARGET `to` VALUE | [`Intent::Fill`] |
//! | `select`/`choose`/`pick` VALUE `from`/`in`/`as` TARGET | [`Intent::Fill`] (a dropdown's value) |
//! | `search for` VALUE | [`Intent::Fill`] of `search` |
//! | `my` TARGET `is` VALUE | [`Intent::Fill`] |
//! | `check if`/`whether` …, `is`/`are`/`does`/`has`/… … | [`Intent::Check`] |
//! | `take me to`/`bring me to`/`go to`/`navigate to` TARGET | [`Intent::Act`]: the element's own action (a link is followed, a section shown) |
//! | `where is`/`where's`/`where are` TARGET, `show [me]`/`find`/`highlight`/`scroll to` TARGET | [`Intent::Show`] |
//! | `what's in` / `what does` TARGET `say`, `what is the` TARGET | [`Intent::Read`] |
//! | `list`/`what`/`which`/`how many` …, `show all` ROLES | [`Intent::List`] |
//! | `tick`/`check`/`turn on`/`switch on`/`enable`/`yes to` TARGET | [`Intent::Turn`], on |
//! | `untick`/`uncheck`/`turn off`/`switch off`/`disable`/`no`/`without`/`i don't want` TARGET | [`Intent::Turn`], off |
//! | `toggle` TARGET | [`Intent::Turn`], no state wanted |
//! | `click`/`tap`/`press`/`select`/`open` TARGET | [`Intent::Click`] |
//! | `add`/`buy`/`order`/`place`/`submit`/`remove`/`pay` … | [`Intent::Click`], the whole text as target |
//! | `i want`/`i'd like`/`i'll take`/`get me` … | [`Intent::Act`], the whole text as target |
//! | anything else ending in `?` | [`Intent::Check`] |
//!
//! A text no rule reads — no command verb, as a person says it: "log me out", "my email" — is
//! `None` here; the offline turn then reads it with [`named`] ([`Intent::Act`], the whole text
//! as the description) and asks the classifier which element it names.
//!
//! A value in quotes (`"…"`, `'…'`, `“…”`, `«…»`) is taken whole, separators inside it
//! included. Values keep their case, accents, `@`, digits and inner punctuation.

use std::ops::Range;

/// What one user text asks of the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// Click the element `target` describes (`screen` action `click`).
    Click {
        /// The description, e.g. `add to cart for the blue mug`.
        target: String,
    },
    /// Put a checkbox (switch, radio) in a state: `tick`/`check`/`turn on`/`enable`/`yes to`
    /// (`on: Some(true)`), `untick`/`uncheck`/`turn off`/`disable`/`no`/`without`
    /// (`Some(false)`), `toggle` (`None`). The box is clicked only when it is not in the
    /// wanted state already (`find`, `list`, then `click`).
    Turn {
        /// The description, e.g. `gift wrap`.
        target: String,
        /// The state wanted: ticked, unticked, or `None` to toggle.
        on: Option<bool>,
    },
    /// Bring the element into view and flash it (`scroll_to`, then `highlight`).
    Show {
        /// The description, e.g. `the checkout button`.
        target: String,
    },
    /// Write `value` into the element (`fill`).
    Fill {
        /// The description of the field, e.g. `the email field`.
        target: String,
        /// The text to write, as the user wrote it (case, accents and `@` kept).
        value: String,
    },
    /// A yes/no question about the screen (`check`).
    Check {
        /// The question, ending in `?`.
        question: String,
    },
    /// The named elements on screen, optionally of one role (`list`).
    List {
        /// The ARIA role to keep (`button`, `checkbox`, `textbox`, …), or `None` for all.
        role: Option<String>,
        /// The noun for one element, in the answer (`checkbox`, `product`, `thing`).
        one: String,
        /// The noun for several (`checkboxes`, `products`, `things`).
        many: String,
    },
    /// What one element holds or says (`find`, then `list` for its value).
    Read {
        /// The description, e.g. `the email field`.
        target: String,
    },
    /// No command verb ("log me out", "take me to the basket", "I want the blue one"): the
    /// element the text names, acted on with its own action — a button or link is clicked, a
    /// checkbox toggled, a text field focused and asked about, anything else shown (`find`,
    /// then the action).
    Act {
        /// The description: the user's text without fillers.
        target: String,
    },
    /// The user asked what the offline mode can do.
    Help,
}

/// Reads `text` (English). `None` when no rule fits (the caller answers with the help text).
pub fn parse(text: &str) -> Option<Intent> {
    let asked = text.trim_end().ends_with(['?', '？']);
    let s = clean(text);
    if s.is_empty() {
        return None;
    }
    let t = Text::new(&s);
    help(&t)
        .or_else(|| fill(&t))
        .or_else(|| check(&t))
        .or_else(|| show(&t))
        .or_else(|| what(&t))
        .or_else(|| list(&t))
        .or_else(|| click(&t))
        .or_else(|| asked.then(|| question(&s)))
}

/// The text with its lower-case twin: `lower` is `text` with ASCII letters lowered, so byte
/// offsets are the same in both (matching on `lower`, slicing `text`).
struct Text<'a> {
    text: &'a str,
    lower: String,
    quotes: Vec<Range<usize>>,
}

impl<'a> Text<'a> {
    fn new(text: &'a str) -> Self {
        Text {
            text,
            lower: text.to_ascii_lowercase(),
            quotes: quoted_spans(text),
        }
    }

    /// The text after the first of `verbs` that starts it (a whole word or words).
    fn after(&self, verbs: &[&str]) -> Option<&'a str> {
        verbs.iter().find_map(|v| {
            let rest = self.lower.strip_prefix(v)?;
            if rest.is_empty() {
                return Some("");
            }
            rest.starts_with(' ')
                .then(|| self.text[v.len()..].trim_start())
        })
    }

    /// Whether the text is exactly one of `phrases`.
    fn is(&self, phrases: &[&str]) -> bool {
        phrases.contains(&self.lower.as_str())
    }
}

const HELP: &[&str] = &[
    "help",
    "hi",
    "hello",
    "hey",
    "what can you do",
    "what can i do",
    "what can i say",
    "what can i ask",
    "what do you do",
    "who are you",
    "how does this work",
    "how do i use this",
];

fn help(t: &Text) -> Option<Intent> {
    t.is(HELP).then_some(Intent::Help)
}

const TYPE_VERBS: &[&str] = &[
    "type in", "type", "enter", "write", "put", "input", "insert", "paste", "fill in", "fill",
];
const INTO: &[&str] = &[" into ", " in to ", " inside ", " in "];

/// Where "put X in Y" means the shop's cart, not a field.
const CART_WORDS: &[&str] = &["cart", "basket", "bag", "trolley"];

fn fill(t: &Text) -> Option<Intent> {
    if let Some(rest) = t.after(&["put", "place", "drop"])
        && let Some((_, place)) = split(rest, INTO, t)
        && CART_WORDS
            .iter()
            .any(|w| has_phrase(&place.to_ascii_lowercase(), w))
    {
        // "put the blue mug in my cart": the product's add-to-cart button.
        return target(|target| Intent::Click { target }, t.text);
    }
    if let Some(rest) = t.after(&["fill in", "fill out", "fill"])
        && let Some((target, value)) = split(rest, &[" with ", " as "], t)
    {
        return fill_intent(target, value);
    }
    if let Some(rest) = t.after(TYPE_VERBS)
        && let Some((value, target)) = split(rest, INTO, t)
    {
        return fill_intent(target, value);
    }
    if let Some(rest) = t.after(&["set", "change", "update", "switch"])
        && let Some((target, value)) = split(rest, &[" to "], t)
    {
        return fill_intent(target, value);
    }
    if let Some(rest) = t.after(&["select", "choose", "pick"])
        && let Some((value, target)) = split(rest, &[" from ", " in ", " as ", " for "], t)
    {
        return fill_intent(target, value);
    }
    if let Some(rest) = t.after(&["search for", "search", "look for", "look up"]) {
        return fill_intent("search", rest);
    }
    if let Some(rest) = t.after(&["my"])
        && let Some((target, value)) = split(rest, &[" is ", " should be "], t)
    {
        return fill_intent(target, value);
    }
    None
}

fn fill_intent(target: &str, value: &str) -> Option<Intent> {
    let target = tidy_target(target);
    let value = unquote(value.trim());
    (!target.is_empty() && !value.is_empty()).then(|| Intent::Fill {
        target,
        value: value.to_string(),
    })
}

/// Splits `rest` (a slice of `t.text`) at the first of `seps`, in the order given, that is not
/// inside quotes: `(before, after)`.
fn split<'a>(rest: &'a str, seps: &[&str], t: &Text) -> Option<(&'a str, &'a str)> {
    let base = rest.as_ptr() as usize - t.text.as_ptr() as usize;
    let lower = &t.lower[base..base + rest.len()];
    for sep in seps {
        let mut from = 0;
        while let Some(i) = lower[from..].find(sep) {
            let at = from + i;
            let abs = base + at;
            if !t.quotes.iter().any(|q| q.contains(&abs)) {
                let (a, b) = (&rest[..at], &rest[at + sep.len()..]);
                if !a.trim().is_empty() && !b.trim().is_empty() {
                    return Some((a, b));
                }
            }
            from = at + sep.len();
        }
    }
    None
}

const QUESTION_WORDS: &[&str] = &[
    "is", "are", "am", "was", "were", "does", "do", "did", "has", "have", "had", "can", "could",
    "will", "would", "should", "isn't", "aren't", "doesn't", "don't", "hasn't", "haven't", "isnt",
    "arent", "doesnt",
];

fn check(t: &Text) -> Option<Intent> {
    if let Some(rest) = t.after(&[
        "check if",
        "check whether",
        "check that",
        "tell me if",
        "tell me whether",
        "see if",
        "ask if",
        "if",
        "whether",
    ]) {
        return (!rest.is_empty()).then(|| question(rest));
    }
    let first = t.lower.split(' ').next().unwrap_or("");
    (QUESTION_WORDS.contains(&first) && t.lower.contains(' ')).then(|| question(t.text))
}

fn question(text: &str) -> Intent {
    let q = text.trim().trim_end_matches(['?', '？', ' ']);
    Intent::Check {
        question: format!("{}?", checkbox_words(q)),
    }
}

/// A switch's state said as "on" / "off" ("is gift wrap on?", "is it turned off?") is a
/// checkbox's state: the words the local classifier reads are "checked" / "unchecked".
fn checkbox_words(q: &str) -> String {
    let lower = q.to_ascii_lowercase();
    for (ends, word) in [
        (
            &["switched on", "turned on", "ticked on", "on"][..],
            "checked",
        ),
        (&["switched off", "turned off", "off"][..], "unchecked"),
    ] {
        for end in ends {
            if lower.ends_with(&format!(" {end}")) {
                return format!("{} {word}", &q[..q.len() - end.len() - 1]);
            }
        }
    }
    q.to_string()
}

fn show(t: &Text) -> Option<Intent> {
    if let Some(rest) = t.after(&["show me where", "tell me where", "where exactly"]) {
        let rest = strip_suffix_word(rest, &["is", "are", "is located", "can be found"]);
        return target(show_of, rest);
    }
    if let Some(rest) = t.after(&["where can i find", "where do i find", "where would i find"]) {
        return target(show_of, rest);
    }
    if t.after(&["where do i", "where can i", "where should i"])
        .is_some()
    {
        return target(show_of, t.text);
    }
    if let Some(rest) = t.after(&["where is", "where's", "wheres", "where are", "where"]) {
        return target(show_of, rest);
    }
    // "take me to the basket": go there — a link is followed, a section shown.
    if let Some(rest) = t.after(&["take me to", "bring me to", "go to", "navigate to"]) {
        if let Some(intent) = roles_only(rest) {
            return Some(intent);
        }
        return target(act_of, rest);
    }
    let rest = t.after(&[
        "show me",
        "show",
        "find me",
        "find",
        "locate",
        "highlight",
        "point me to",
        "point to",
        "point at",
        "point out",
        "scroll down to",
        "scroll up to",
        "scroll to",
        "bring up",
        "jump to",
        "see",
        "look at",
    ])?;
    // "show me the buttons", "show all checkboxes": a list, not one element.
    if let Some(intent) = roles_only(rest) {
        return Some(intent);
    }
    target(show_of, rest)
}

fn show_of(target: String) -> Intent {
    Intent::Show { target }
}

fn act_of(target: String) -> Intent {
    Intent::Act { target }
}

/// A text no rule of [`parse`] reads, as [`Intent::Act`] on its whole text without fillers:
/// the element it names gets its own action. `None` for a text with no letters or digits, or
/// a bare command verb ("click", "type"), which name nothing.
pub fn named(text: &str) -> Option<Intent> {
    let s = clean(text);
    if !s.chars().any(char::is_alphanumeric) {
        return None;
    }
    let lower = s.to_lowercase();
    let bare = CLICK_VERBS
        .iter()
        .chain(TYPE_VERBS)
        .chain(&[
            "show", "show me", "find", "where is", "list", "read", "help",
        ])
        .any(|v| *v == lower);
    (!bare).then_some(Intent::Act { target: s })
}

fn target(make: fn(String) -> Intent, text: &str) -> Option<Intent> {
    let target = tidy_target(text);
    (!target.is_empty()).then(|| make(target))
}

/// `what …` questions that ask for one element's content: `what's in the email field`, `what
/// does the total say`, `what is the total`.
fn what(t: &Text) -> Option<Intent> {
    let read = |rest: &str| target(|target| Intent::Read { target }, rest);
    if let Some(rest) = t.after(&[
        "what's written in",
        "what is written in",
        "what's typed in",
        "what is typed in",
        "what's entered in",
        "what is entered in",
        "what's inside",
        "what is inside",
        "what's in",
        "what is in",
        "whats in",
        "what was in",
        "what's the value of",
        "what is the value of",
        "what did i type in",
        "what did i type into",
        "what did i enter in",
        "what did i enter into",
        "what did i write in",
        "read me",
        "read out",
        "read",
    ]) {
        if let Some(intent) = roles_only(rest) {
            return Some(intent);
        }
        return read(rest);
    }
    // "how much is the total?": the value of the element named so.
    if let Some(rest) = t.after(&["how much is", "how much's", "how much does"]) {
        let rest = strip_suffix_word(rest, &["come to", "cost", "say"]);
        return read(rest);
    }
    if let Some(rest) = t.after(&["what does", "what do"])
        && !["you ", "i ", "we "]
            .iter()
            .any(|w| rest.to_ascii_lowercase().starts_with(w))
    {
        let rest = strip_suffix_word(
            rest,
            &[
                "say",
                "show",
                "read",
                "contain",
                "hold",
                "have in it",
                "have",
            ],
        );
        return read(rest);
    }
    if let Some(rest) = t.after(&["what's", "what is", "whats"]) {
        let lower = rest.to_ascii_lowercase();
        let on_screen = ["on", "there", "here", "visible", "shown", "available"]
            .iter()
            .any(|w| lower.split(' ').any(|x| x == *w));
        if !on_screen && role_in(&lower).is_none_or(|r| !r.plural) {
            return read(rest);
        }
    }
    None
}

fn list(t: &Text) -> Option<Intent> {
    let rest = t.after(&[
        "list all",
        "list every",
        "list the",
        "list",
        "name all",
        "name the",
        "enumerate",
        "how many",
        "which",
        "what's",
        "whats",
        "what",
        "show all",
        "show every",
        "tell me all",
        "give me all",
        "give me a list of",
    ])?;
    Some(list_of(role_in(&rest.to_ascii_lowercase())))
}

fn list_of(role: Option<RoleWord>) -> Intent {
    match role {
        Some(r) => Intent::List {
            role: Some(r.role.to_string()),
            one: r.one.to_string(),
            many: r.many.to_string(),
        },
        None => Intent::List {
            role: None,
            one: "thing".into(),
            many: "things".into(),
        },
    }
}

/// `rest` names only a kind of element in the plural ("the buttons", "all checkboxes"):
/// a [`Intent::List`] of that role.
fn roles_only(rest: &str) -> Option<Intent> {
    let lower = rest.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(' ')
        .filter(|w| {
            !w.is_empty()
                && !matches!(
                    *w,
                    "the"
                        | "all"
                        | "every"
                        | "of"
                        | "me"
                        | "my"
                        | "your"
                        | "on"
                        | "screen"
                        | "page"
                        | "this"
                        | "here"
                        | "there"
                        | "available"
                        | "visible"
                )
        })
        .collect();
    let role = role_in(&lower)?;
    (role.plural && words.join(" ") == role.word).then(|| list_of(Some(role)))
}

/// A word for a kind of element and the ARIA role it means.
#[derive(Debug, Clone, Copy)]
struct RoleWord {
    word: &'static str,
    role: &'static str,
    one: &'static str,
    many: &'static str,
    plural: bool,
}

/// `(word, role, singular noun, plural noun)`; longer words first so "radio buttons" wins
/// over "buttons".
const ROLE_WORDS: &[(&str, &str, &str, &str)] = &[
    ("radio buttons", "radio", "radio button", "radio buttons"),
    ("radio button", "radio", "radio button", "radio buttons"),
    ("check boxes", "checkbox", "checkbox", "checkboxes"),
    ("check box", "checkbox", "checkbox", "checkboxes"),
    ("text fields", "textbox", "text field", "text fields"),
    ("text field", "textbox", "text field", "text fields"),
    ("text boxes", "textbox", "text box", "text boxes"),
    ("text box", "textbox", "text box", "text boxes"),
    ("search boxes", "searchbox", "search box", "search boxes"),
    ("drop-downs", "combobox", "dropdown", "dropdowns"),
    ("drop-down", "combobox", "dropdown", "dropdowns"),
    ("checkboxes", "checkbox", "checkbox", "checkboxes"),
    ("checkbox", "checkbox", "checkbox", "checkboxes"),
    ("tickboxes", "checkbox", "checkbox", "checkboxes"),
    ("textboxes", "textbox", "text box", "text boxes"),
    ("textbox", "textbox", "text box", "text boxes"),
    ("dropdowns", "combobox", "dropdown", "dropdowns"),
    ("dropdown", "combobox", "dropdown", "dropdowns"),
    ("comboboxes", "combobox", "dropdown", "dropdowns"),
    ("combobox", "combobox", "dropdown", "dropdowns"),
    ("buttons", "button", "button", "buttons"),
    ("button", "button", "button", "buttons"),
    ("links", "link", "link", "links"),
    ("link", "link", "link", "links"),
    ("fields", "textbox", "field", "fields"),
    ("field", "textbox", "field", "fields"),
    ("inputs", "textbox", "input", "inputs"),
    ("input", "textbox", "input", "inputs"),
    ("headings", "heading", "heading", "headings"),
    ("heading", "heading", "heading", "headings"),
    ("products", "listitem", "product", "products"),
    ("product", "listitem", "product", "products"),
    ("items", "listitem", "item", "items"),
    ("item", "listitem", "item", "items"),
    ("options", "option", "option", "options"),
    ("option", "option", "option", "options"),
    ("radios", "radio", "radio button", "radio buttons"),
    ("tabs", "tab", "tab", "tabs"),
    ("tab", "tab", "tab", "tabs"),
    ("images", "img", "image", "images"),
    ("image", "img", "image", "images"),
    ("pictures", "img", "image", "images"),
    ("rows", "row", "row", "rows"),
    ("row", "row", "row", "rows"),
    ("paragraphs", "paragraph", "paragraph", "paragraphs"),
    ("sliders", "slider", "slider", "sliders"),
    ("switches", "switch", "switch", "switches"),
];

/// The first role word in `lower` (whole words), longest words first.
fn role_in(lower: &str) -> Option<RoleWord> {
    ROLE_WORDS.iter().find_map(|&(word, role, one, many)| {
        has_phrase(lower, word).then_some(RoleWord {
            word,
            role,
            one,
            many,
            plural: word == many || (word != one && word.ends_with('s')),
        })
    })
}

/// Whether `phrase` occurs in `lower` as whole words.
fn has_phrase(lower: &str, phrase: &str) -> bool {
    let mut from = 0;
    while let Some(i) = lower[from..].find(phrase) {
        let at = from + i;
        let end = at + phrase.len();
        let before = lower[..at].chars().next_back();
        let after = lower[end..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        if edge(before) && edge(after) {
            return true;
        }
        from = end;
    }
    false
}

const CLICK_VERBS: &[&str] = &[
    "click on",
    "click",
    "double-click",
    "double click",
    "tap on",
    "tap",
    "press on",
    "press",
    "hit",
    "push",
    "select",
    "choose",
    "pick",
    "open",
    "activate",
    "follow",
];

/// Phrases whose whole text is the description of a button ("add the blue mug to my cart").
const ACT_PHRASES: &[&str] = &[
    "add",
    "buy",
    "order",
    "purchase",
    "place",
    "submit",
    "remove",
    "delete",
    "send",
    "checkout",
    "check out",
    "pay",
    "log in",
    "login",
    "sign in",
    "sign up",
    "close",
    "cancel",
    "confirm",
    "continue",
    "go back",
];

/// Phrases of a wish ("I want the blue one"): the whole text names the element, which gets its
/// own action ([`Intent::Act`]: a button is clicked, a checkbox ticked, a product shown).
const WISH_PHRASES: &[&str] = &[
    "i'll take",
    "i will take",
    "i'll have",
    "i want",
    "i'd like",
    "i would like",
    "get me",
];

/// Verbs that say which state a checkbox should be in ([`Intent::Turn`]), and `toggle`,
/// which says none. "check out" is an [`ACT_PHRASES`] phrase, tried first.
const TURN_VERBS: &[(&[&str], Option<bool>)] = &[
    (
        &[
            "tick",
            "check",
            "turn on",
            "switch on",
            "enable",
            "yes to",
            "yes please to",
        ],
        Some(true),
    ),
    (
        &[
            "untick",
            "uncheck",
            "turn off",
            "switch off",
            "disable",
            "no to",
            "no",
            "without",
            "i don't want",
            "i do not want",
            "don't want",
        ],
        Some(false),
    ),
    (&["toggle"], None),
];

/// Whether a description starts with a wish ("I want email offers"): a checkbox it names is
/// wanted ticked.
pub fn is_wish(target: &str) -> bool {
    let lower = target.to_lowercase();
    WISH_PHRASES
        .iter()
        .any(|p| lower == *p || lower.starts_with(&format!("{p} ")))
}

fn click(t: &Text) -> Option<Intent> {
    if t.after(WISH_PHRASES).is_some() {
        return target(act_of, t.text);
    }
    // Phrases first: "check out" is not "check" + "out".
    if t.after(ACT_PHRASES).is_some() {
        return target(|target| Intent::Click { target }, t.text);
    }
    for (verbs, on) in TURN_VERBS {
        if let Some(rest) = t.after(verbs) {
            let target = tidy_target(rest);
            return (!target.is_empty()).then_some(Intent::Turn { target, on: *on });
        }
    }
    let rest = t.after(CLICK_VERBS)?;
    target(|target| Intent::Click { target }, rest)
}

/// Leading and trailing filler words and punctuation removed; inner text untouched.
fn clean(text: &str) -> String {
    const LEADING: &[&str] = &[
        "please",
        "pls",
        "kindly",
        "can you please",
        "could you please",
        "can you",
        "could you",
        "would you",
        "will you",
        "i want you to",
        "i'd like you to",
        "i need you to",
        "i want to",
        "i'd like to",
        "i would like to",
        "i need to",
        "go ahead and",
        "let's",
        "lets",
        "let me",
        "now",
        "then",
        "and",
        "also",
        "ok",
        "okay",
        "so",
        "just",
        "hey",
        "bot",
        "tell me",
    ];
    const TRAILING: &[&str] = &[
        "please",
        "for me",
        "now",
        "thanks",
        "thank you",
        "right now",
    ];
    let mut s = text.trim();
    loop {
        let before = s.len();
        s = s.trim_end_matches(|c: char| {
            c.is_whitespace() || matches!(c, '.' | '!' | '?' | '？' | ',' | ';')
        });
        let lower = s.to_ascii_lowercase();
        for tail in TRAILING {
            if let Some(head) = lower.strip_suffix(tail)
                && (head.is_empty() || head.ends_with([' ', ',']))
            {
                s = &s[..head.len()];
                break;
            }
        }
        s = s.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ':' | ';'));
        let lower = s.to_ascii_lowercase();
        for lead in LEADING {
            if let Some(rest) = lower.strip_prefix(lead)
                && rest.starts_with([' ', ','])
            {
                s = &s[lead.len()..];
                break;
            }
        }
        if s.len() == before {
            break;
        }
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Byte ranges (quotes included) of quoted spans: `"…"`, `“…”`, `«…»`, and `'…'` when the
/// opening `'` starts a word and the closing one ends it (so "what's" is no quote).
fn quoted_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let close = match c {
            '"' => Some('"'),
            '“' => Some('”'),
            '«' => Some('»'),
            '\'' if i == 0 || chars[i - 1].1.is_whitespace() => Some('\''),
            _ => None,
        };
        if let Some(close) = close
            && let Some(j) = (i + 1..chars.len()).find(|&j| {
                chars[j].1 == close
                    && (close != '\''
                        || chars
                            .get(j + 1)
                            .is_none_or(|&(_, n)| n.is_whitespace() || n.is_ascii_punctuation()))
            })
        {
            let end = chars[j].0 + close.len_utf8();
            spans.push(at..end);
            i = j + 1;
            continue;
        }
        i += 1;
    }
    spans
}

/// `text` without one pair of surrounding quotes.
fn unquote(text: &str) -> &str {
    for (open, close) in [('"', '"'), ('“', '”'), ('«', '»'), ('\'', '\'')] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            return inner;
        }
    }
    text
}

/// A target description: unquoted, trimmed, without a trailing "please" or "for me".
fn tidy_target(text: &str) -> String {
    unquote(text.trim()).trim().to_string()
}

/// `text` without one of `words` at its end (whole words, any case).
fn strip_suffix_word<'a>(text: &'a str, words: &[&str]) -> &'a str {
    let lower = text.to_ascii_lowercase();
    for w in words {
        if let Some(head) = lower.strip_suffix(w)
            && head.ends_with(' ')
        {
            return text[..head.len()].trim_end();
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn click(t: &str) -> Intent {
        Intent::Click { target: t.into() }
    }
    fn turn(t: &str, on: Option<bool>) -> Intent {
        Intent::Turn {
            target: t.into(),
            on,
        }
    }
    fn show(t: &str) -> Intent {
        Intent::Show { target: t.into() }
    }
    fn act(t: &str) -> Intent {
        Intent::Act { target: t.into() }
    }
    fn fill(t: &str, v: &str) -> Intent {
        Intent::Fill {
            target: t.into(),
            value: v.into(),
        }
    }
    fn check(q: &str) -> Intent {
        Intent::Check { question: q.into() }
    }
    fn read(t: &str) -> Intent {
        Intent::Read { target: t.into() }
    }
    fn list(role: &str, one: &str, many: &str) -> Intent {
        Intent::List {
            role: Some(role.into()),
            one: one.into(),
            many: many.into(),
        }
    }
    fn list_all() -> Intent {
        Intent::List {
            role: None,
            one: "thing".into(),
            many: "things".into(),
        }
    }

    fn assert_parses(cases: &[(&str, Intent)]) {
        for (text, want) in cases {
            assert_eq!(parse(text).as_ref(), Some(want), "{text:?}");
        }
    }

    #[test]
    fn click_phrasings() {
        assert_parses(&[
            (
                "click add to cart for the blue mug",
                click("add to cart for the blue mug"),
            ),
            (
                "Click on the Place order button.",
                click("the Place order button"),
            ),
            ("please tap Send", click("Send")),
            (
                "can you press the checkout button please",
                click("the checkout button"),
            ),
            ("Could you please click 'Log in'?", click("Log in")),
            ("ok, hit the send button", click("the send button")),
            (
                "tick the gift wrap box",
                turn("the gift wrap box", Some(true)),
            ),
            ("check gift wrap", turn("gift wrap", Some(true))),
            ("uncheck Gift wrap", turn("Gift wrap", Some(false))),
            ("turn off newsletter", turn("newsletter", Some(false))),
            ("no newsletter", turn("newsletter", Some(false))),
            ("turn on gift wrap", turn("gift wrap", Some(true))),
            ("without gift wrap", turn("gift wrap", Some(false))),
            ("toggle gift wrap", turn("gift wrap", None)),
            ("open the cart", click("the cart")),
            ("select the second product", click("the second product")),
            (
                "add the blue mug to my cart",
                click("add the blue mug to my cart"),
            ),
            ("Buy the French press", click("Buy the French press")),
            ("place the order", click("place the order")),
            (
                "I want to add the travel mug to the cart",
                click("add the travel mug to the cart"),
            ),
            ("submit", click("submit")),
            ("check out", click("check out")),
            ("Send!", click("Send")),
            (
                "put ana@example.com in the email field",
                fill("the email field", "ana@example.com"),
            ),
            (
                "put the blue mug in my cart",
                click("put the blue mug in my cart"),
            ),
            (
                "put the thermos in my basket",
                click("put the thermos in my basket"),
            ),
            (
                "I'll take the espresso mug",
                act("I'll take the espresso mug"),
            ),
            ("I want the blue mug", act("I want the blue mug")),
        ]);
    }

    #[test]
    fn show_phrasings() {
        assert_parses(&[
            ("where is the checkout button?", show("the checkout button")),
            ("Where's the email field", show("the email field")),
            ("where are the products", show("the products")),
            ("show me the checkout form", show("the checkout form")),
            ("show me where the search box is", show("the search box")),
            ("highlight Place order", show("Place order")),
            ("scroll to the checkout", show("the checkout")),
            (
                "can you find the country dropdown for me",
                show("the country dropdown"),
            ),
            ("take me to the cart", act("the cart")),
            (
                "where can I find the gift wrap option?",
                show("the gift wrap option"),
            ),
            ("where do I type my email", show("where do I type my email")),
            ("let me see the cart", show("the cart")),
        ]);
    }

    #[test]
    fn fill_phrasings_keep_values_as_written() {
        assert_parses(&[
            (
                "type ana@example.com into the email field",
                fill("the email field", "ana@example.com"),
            ),
            (
                "fill the name field with Ana María",
                fill("the name field", "Ana María"),
            ),
            (
                "Please type ana.lima+shop@example.co.uk in the email box.",
                fill("the email box", "ana.lima+shop@example.co.uk"),
            ),
            (
                "enter 42 in the quantity field",
                fill("the quantity field", "42"),
            ),
            (
                "enter +34 600 123 456 into phone",
                fill("phone", "+34 600 123 456"),
            ),
            (
                "write Hello there! into the message box",
                fill("the message box", "Hello there!"),
            ),
            (
                "type \"Lives in Lisbon, into coffee\" into the message box",
                fill("the message box", "Lives in Lisbon, into coffee"),
            ),
            (
                "type “Ana” in the name field",
                fill("the name field", "Ana"),
            ),
            (
                "fill in the name field with 'O'Brien Ltd'",
                fill("the name field", "O'Brien Ltd"),
            ),
            (
                "fill out Email with ana@example.com",
                fill("Email", "ana@example.com"),
            ),
            (
                "fill ana@example.com into the email field",
                fill("the email field", "ana@example.com"),
            ),
            (
                "put Zoë Ølgaard in the name field",
                fill("the name field", "Zoë Ølgaard"),
            ),
            (
                "set the country to Portugal",
                fill("the country", "Portugal"),
            ),
            (
                "change country to United Kingdom",
                fill("country", "United Kingdom"),
            ),
            (
                "select Spain from the country dropdown",
                fill("the country dropdown", "Spain"),
            ),
            ("choose Italy as the country", fill("the country", "Italy")),
            ("search for mug", fill("search", "mug")),
            (
                "my email is ana@example.com",
                fill("email", "ana@example.com"),
            ),
            (
                "My name is Ana María López",
                fill("name", "Ana María López"),
            ),
            (
                "type 2026-12-01 into the date field",
                fill("the date field", "2026-12-01"),
            ),
            (
                "enter 19.99 in the price box",
                fill("the price box", "19.99"),
            ),
        ]);
    }

    #[test]
    fn check_phrasings() {
        assert_parses(&[
            ("is gift wrap checked?", check("is gift wrap checked?")),
            ("Is the cart empty", check("Is the cart empty?")),
            ("are all boxes checked?", check("are all boxes checked?")),
            ("is there a blue mug?", check("is there a blue mug?")),
            (
                "does the email field have a value?",
                check("does the email field have a value?"),
            ),
            (
                "check if the order was placed",
                check("the order was placed?"),
            ),
            (
                "can you check whether gift wrap is on",
                check("gift wrap is checked?"),
            ),
            (
                "has the order been placed?",
                check("has the order been placed?"),
            ),
            ("gift wrap on?", check("gift wrap checked?")),
            (
                "is the newsletter switched off?",
                check("is the newsletter unchecked?"),
            ),
            (
                "is the coupon box on screen?",
                check("is the coupon box on screen?"),
            ),
        ]);
    }

    #[test]
    fn list_and_read_phrasings() {
        assert_parses(&[
            ("list the buttons", list("button", "button", "buttons")),
            (
                "list all checkboxes",
                list("checkbox", "checkbox", "checkboxes"),
            ),
            (
                "what products are there?",
                list("listitem", "product", "products"),
            ),
            ("which links are on the page", list("link", "link", "links")),
            (
                "how many items are in the list?",
                list("listitem", "item", "items"),
            ),
            (
                "what radio buttons are there",
                list("radio", "radio button", "radio buttons"),
            ),
            (
                "show me all the text fields",
                list("textbox", "text field", "text fields"),
            ),
            ("show the buttons", list("button", "button", "buttons")),
            ("what's on the screen?", list_all()),
            ("what do you see", list_all()),
            ("list everything", list_all()),
            ("what's in the email field?", read("the email field")),
            ("what is written in the name box", read("the name box")),
            ("what does the cart summary say?", read("the cart summary")),
            ("what's the total", read("the total")),
            ("how much is the total?", read("the total")),
            ("read the order result", read("the order result")),
            ("tell me what's in the search box", read("the search box")),
        ]);
    }

    #[test]
    fn help_and_unreadable() {
        assert_eq!(parse("help"), Some(Intent::Help));
        assert_eq!(parse("Hi!"), Some(Intent::Help));
        assert_eq!(parse("what can you do?"), Some(Intent::Help));
        for text in [
            "",
            "   ",
            "?!",
            "the weather is nice today",
            "blue",
            "click",
            "type into the email field",
            "fill the name field with",
            "42",
            "😀😀",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }

    /// What no rule reads names an element, unless it names nothing.
    #[test]
    fn a_text_without_a_verb_is_named() {
        assert_eq!(parse("log me out"), None);
        assert_eq!(named("log me out"), Some(act("log me out")));
        assert_eq!(named("please, my email."), Some(act("my email")));
        assert_eq!(
            named("type into the email field"),
            Some(act("type into the email field"))
        );
        for text in ["", "  ", "?!", "click", "Type", "show me", "😀😀"] {
            assert_eq!(named(text), None, "{text:?}");
        }
    }

    /// Any input parses or is refused without panicking; values are slices of the input.
    #[test]
    fn odd_input_never_panics() {
        let long = "type ".to_string() + &"é".repeat(5000) + " into the name field";
        assert_eq!(
            parse(&long),
            Some(fill("the name field", &"é".repeat(5000)))
        );
        for text in [
            "\"",
            "'",
            "“",
            "type \" into",
            "click \"",
            "fill with with with",
            "type in in in",
            "where is",
            "show me where is",
            "my is",
            "set to",
            "check if",
            "what does",
            "select from",
            "\u{0}click\u{0}",
            "CLICK ÉLAN",
            "click İstanbul",
            "type ß into ǅ",
        ] {
            let _ = parse(text);
        }
        assert_eq!(parse("CLICK ÉLAN"), Some(click("ÉLAN")));
        assert_eq!(parse("click İstanbul"), Some(click("İstanbul")));
    }
}
