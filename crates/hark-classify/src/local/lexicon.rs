//! The local classifier's word tables, in one reviewed file: UI synonyms and paraphrases, role
//! words, state words, ordinals, container words, verbs and filler words.
//!
//! Every table is plain data. Words are lower-case ASCII after [`super::text`]'s
//! normalisation; multi-word phrases are joined into one canonical token before the single-word
//! synonyms apply. Edit with care: a word in two tables (a role word that is also a common
//! name, say "menu") changes answers; the tests in `tests/local_classifier.rs` pin each family.

/// Multi-word phrases, longest first within a first word, each read as one canonical token.
/// `(words, canonical)`.
pub const PHRASES: &[(&[&str], &str)] = &[
    (&["sign", "me", "in"], "login"),
    (&["log", "me", "in"], "login"),
    (&["log", "in"], "login"),
    (&["sign", "in"], "login"),
    (&["sign", "on"], "login"),
    (&["sign", "me", "up"], "signup"),
    (&["sign", "up"], "signup"),
    (&["create", "an", "account"], "signup"),
    (&["create", "account"], "signup"),
    (&["log", "me", "out"], "logout"),
    (&["sign", "me", "out"], "logout"),
    (&["log", "out"], "logout"),
    (&["sign", "out"], "logout"),
    (&["check", "out"], "checkout"),
    (&["look", "up"], "search"),
    (&["look", "for"], "search"),
    (&["place", "order"], "submit"),
    (&["place", "my", "order"], "submit"),
    (&["place", "the", "order"], "submit"),
    (&["shopping", "cart"], "cart"),
    (&["shopping", "basket"], "cart"),
    (&["shopping", "bag"], "cart"),
    (&["e", "mail"], "email"),
    (&["zip", "code"], "zip"),
    (&["post", "code"], "zip"),
    (&["postal", "code"], "zip"),
    (&["first", "name"], "firstname"),
    (&["given", "name"], "firstname"),
    (&["last", "name"], "lastname"),
    (&["family", "name"], "lastname"),
    (&["user", "name"], "username"),
    (&["phone", "number"], "phone"),
    (&["drop", "down"], "dropdown"),
    (&["check", "box"], "checkbox"),
    (&["tick", "box"], "checkbox"),
    (&["text", "box"], "textbox"),
    (&["text", "field"], "textbox"),
    (&["text", "area"], "textbox"),
    (&["input", "box"], "textbox"),
    (&["input", "field"], "textbox"),
    (&["search", "box"], "search textbox"),
    (&["search", "bar"], "search textbox"),
    (&["search", "field"], "search textbox"),
    (&["radio", "button"], "radio"),
    (&["list", "box"], "dropdown"),
    (&["select", "box"], "dropdown"),
    (&["combo", "box"], "dropdown"),
    (&["not", "checked"], "unchecked"),
    (&["not", "ticked"], "unchecked"),
    (&["not", "selected"], "unselected"),
    (&["greyed", "out"], "disabled"),
    (&["grayed", "out"], "disabled"),
    (&["second", "to", "last"], "penultimate"),
    (&["second", "last"], "penultimate"),
    (&["next", "to"], "beside"),
    (&["go", "back"], "previous"),
    (&["go", "to"], "go"),
    (&["click", "on"], "click"),
    (&["thank", "you"], "thanks"),
];

/// Single-word synonym groups: `(canonical, [synonyms])`. A token that is a synonym reads as
/// its canonical word, on both the element's side and the query's.
pub const SYNONYMS: &[(&str, &[&str])] = &[
    ("cart", &["basket", "bag", "trolley"]),
    ("login", &["signin", "logon", "signon"]),
    (
        "signup",
        &["register", "registration", "join", "enroll", "enrol"],
    ),
    ("logout", &["signout", "logoff"]),
    ("search", &["find", "lookup", "seek"]),
    ("submit", &["send"]),
    ("delete", &["remove", "trash", "erase", "discard", "bin"]),
    ("close", &["dismiss", "exit"]),
    ("edit", &["modify", "change", "update", "rename"]),
    ("add", &["plus", "new", "create", "insert"]),
    ("cancel", &["abort"]),
    ("next", &["forward", "continue", "proceed"]),
    ("previous", &["back", "prev", "prior", "earlier"]),
    ("home", &["homepage", "start"]),
    (
        "settings",
        &[
            "setting",
            "preferences",
            "preference",
            "prefs",
            "config",
            "configuration",
        ],
    ),
    ("help", &["support", "faq", "assistance"]),
    ("account", &["profile"]),
    ("email", &["mail", "e-mail"]),
    ("password", &["passcode", "pwd", "passphrase", "pass"]),
    ("username", &["login-name", "userid", "user"]),
    ("phone", &["telephone", "tel", "mobile"]),
    ("buy", &["purchase", "pay", "payment"]),
    ("price", &["cost", "costs", "pricing"]),
    ("quantity", &["qty"]),
    ("message", &["msg", "chat"]),
    ("notification", &["notifications", "alerts"]),
    ("clear", &["reset", "wipe"]),
    ("filter", &["refine"]),
    ("upload", &["attach"]),
    ("zip", &["postcode", "zipcode", "postal"]),
    (
        "favourite",
        &["favorite", "favourites", "favorites", "fave"],
    ),
    ("ok", &["okay"]),
    ("yes", &["yep", "yeah", "sure"]),
    ("city", &["town"]),
    ("lastname", &["surname"]),
    ("checkout", &["checkouts"]),
    ("menu", &["hamburger"]),
    ("colour", &["color"]),
    ("size", &["sizes"]),
];

/// Number words, read as digits (`"one"` → `"1"`; button ONE matches "button 1").
pub const NUMBER_WORDS: &[(&str, &str)] = &[
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("ten", "10"),
];

/// Role classes a query word can name.
pub mod roles {
    /// Text entry: `textbox`, `searchbox`, `spinbutton`, `combobox`.
    pub const FIELD: &[&str] = &["textbox", "searchbox", "spinbutton", "combobox"];
    /// `button`.
    pub const BUTTON: &[&str] = &["button"];
    /// `link`.
    pub const LINK: &[&str] = &["link"];
    /// Checkable boxes and switches.
    pub const CHECKBOX: &[&str] = &["checkbox", "switch", "menuitemcheckbox"];
    /// Radio buttons.
    pub const RADIO: &[&str] = &["radio", "menuitemradio"];
    /// Tabs.
    pub const TAB: &[&str] = &["tab"];
    /// Dropdowns and menus (a button that opens a listbox is caught by its `expanded` state).
    pub const DROPDOWN: &[&str] = &["combobox", "listbox", "menu", "menubar"];
    /// Options of a list or menu.
    pub const OPTION: &[&str] = &["option", "menuitem", "menuitemradio", "radio", "treeitem"];
    /// Headings.
    pub const HEADING: &[&str] = &["heading"];
    /// Images, and the controls an icon usually is.
    pub const IMAGE: &[&str] = &["img", "image", "figure"];
    /// An icon: an image or the button or link it sits in.
    pub const ICON: &[&str] = &["img", "image", "button", "link"];
    /// Table and grid rows.
    pub const ROW: &[&str] = &["row"];
    /// Table and grid cells.
    pub const CELL: &[&str] = &["cell", "gridcell", "columnheader", "rowheader"];
    /// Items of a list, menu, tree or feed.
    pub const ITEM: &[&str] = &[
        "listitem", "option", "menuitem", "row", "treeitem", "article",
    ];
    /// Search or feed results.
    pub const RESULT: &[&str] = &["link", "listitem", "article", "row"];
    /// Sliders.
    pub const SLIDER: &[&str] = &["slider"];
    /// Dialogs.
    pub const DIALOG: &[&str] = &["dialog", "alertdialog"];
    /// Plain text.
    pub const TEXT: &[&str] = &["paragraph", "text", "statictext"];
}

/// Query words that name a role class.
pub const ROLE_WORDS: &[(&str, &[&str])] = &[
    ("field", roles::FIELD),
    ("input", roles::FIELD),
    ("textbox", roles::FIELD),
    ("textarea", roles::FIELD),
    ("textfield", roles::FIELD),
    ("searchbox", roles::FIELD),
    ("box", roles::FIELD),
    ("button", roles::BUTTON),
    ("btn", roles::BUTTON),
    ("link", roles::LINK),
    ("hyperlink", roles::LINK),
    ("checkbox", roles::CHECKBOX),
    ("switch", roles::CHECKBOX),
    ("toggle", roles::CHECKBOX),
    ("radio", roles::RADIO),
    ("tab", roles::TAB),
    ("dropdown", roles::DROPDOWN),
    ("combobox", roles::DROPDOWN),
    ("picker", roles::DROPDOWN),
    ("selector", roles::DROPDOWN),
    ("option", roles::OPTION),
    ("choice", roles::OPTION),
    ("heading", roles::HEADING),
    ("headline", roles::HEADING),
    ("title", roles::HEADING),
    ("image", roles::IMAGE),
    ("picture", roles::IMAGE),
    ("photo", roles::IMAGE),
    ("img", roles::IMAGE),
    ("logo", roles::IMAGE),
    ("icon", roles::ICON),
    ("row", roles::ROW),
    ("cell", roles::CELL),
    ("item", roles::ITEM),
    ("entry", roles::ITEM),
    ("result", roles::RESULT),
    ("slider", roles::SLIDER),
    ("paragraph", roles::TEXT),
];

/// Words naming a container, for "in the dialog", "in the last row", "in the form":
/// `(word, roles the container may have)`.
pub const CONTAINER_WORDS: &[(&str, &[&str])] = &[
    ("dialog", roles::DIALOG),
    ("modal", roles::DIALOG),
    ("popup", roles::DIALOG),
    ("row", roles::ROW),
    ("table", &["table", "grid", "treegrid"]),
    ("grid", &["table", "grid", "treegrid"]),
    ("list", &["list", "listbox", "tree"]),
    ("form", &["form"]),
    ("menu", &["menu", "menubar", "listbox"]),
    ("dropdown", &["menu", "listbox", "combobox"]),
    ("nav", &["navigation"]),
    ("navigation", &["navigation"]),
    ("navbar", &["navigation"]),
    ("header", &["banner"]),
    ("banner", &["banner"]),
    ("footer", &["contentinfo"]),
    ("sidebar", &["complementary"]),
    ("toolbar", &["toolbar"]),
    ("section", &["region", "group", "article"]),
    ("panel", &["region", "group", "tabpanel"]),
    ("card", &["region", "group", "article", "listitem"]),
    ("cell", roles::CELL),
    ("item", roles::ITEM),
];

/// Prepositions that open a container phrase ("in the dialog").
pub const CONTAINER_PREPOSITIONS: &[&str] = &["in", "inside", "within", "on", "under", "of"];

/// Ordinal words: `(word, n)`; `n` counts from 1.
pub const ORDINALS: &[(&str, usize)] = &[
    ("first", 1),
    ("1st", 1),
    ("top", 1),
    ("second", 2),
    ("2nd", 2),
    ("third", 3),
    ("3rd", 3),
    ("fourth", 4),
    ("4th", 4),
    ("fifth", 5),
    ("5th", 5),
    ("sixth", 6),
    ("6th", 6),
    ("seventh", 7),
    ("7th", 7),
    ("eighth", 8),
    ("8th", 8),
    ("ninth", 9),
    ("9th", 9),
    ("tenth", 10),
    ("10th", 10),
];

/// Words for the last of a kind (`"last"`, `"bottom"`, `"final"`).
pub const LAST_WORDS: &[&str] = &["last", "bottom", "final", "lowest"];

/// Word for the one before the last.
pub const PENULTIMATE: &str = "penultimate";

/// A state a word asks of an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateWord {
    /// Checked (or selected, for options).
    Checked,
    /// Not checked.
    Unchecked,
    /// Selected (or checked).
    Selected,
    /// Not selected.
    Unselected,
    /// Disabled.
    Disabled,
    /// Not disabled.
    Enabled,
    /// Expanded (open).
    Expanded,
    /// Not expanded.
    Collapsed,
    /// Has focus.
    Focused,
    /// Off screen.
    Offscreen,
    /// A field without a value.
    Empty,
    /// A field with a value.
    Filled,
}

/// State words: `(word, state)`.
pub const STATE_WORDS: &[(&str, StateWord)] = &[
    ("checked", StateWord::Checked),
    ("ticked", StateWord::Checked),
    ("unchecked", StateWord::Unchecked),
    ("unticked", StateWord::Unchecked),
    ("selected", StateWord::Selected),
    ("chosen", StateWord::Selected),
    ("highlighted", StateWord::Selected),
    ("unselected", StateWord::Unselected),
    ("disabled", StateWord::Disabled),
    ("inactive", StateWord::Disabled),
    ("unavailable", StateWord::Disabled),
    ("enabled", StateWord::Enabled),
    ("clickable", StateWord::Enabled),
    ("expanded", StateWord::Expanded),
    ("collapsed", StateWord::Collapsed),
    ("focused", StateWord::Focused),
    ("offscreen", StateWord::Offscreen),
    ("empty", StateWord::Empty),
    ("blank", StateWord::Empty),
    ("filled", StateWord::Filled),
];

/// Verbs and filler dropped from a description ("click on the …", "please", "I want to").
pub const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "please",
    "me",
    "my",
    "i",
    "you",
    "your",
    "we",
    "our",
    "to",
    "at",
    "and",
    "or",
    "just",
    "can",
    "could",
    "would",
    "should",
    "will",
    "want",
    "wanna",
    "like",
    "need",
    "let",
    "lets",
    "now",
    "then",
    "there",
    "here",
    "thing",
    "element",
    "control",
    "widget",
    "which",
    "what",
    "where",
    "is",
    "are",
    "be",
    "so",
    "with",
    "by",
    "from",
    "for",
    "into",
    "onto",
    "about",
    "some",
    "any",
    "click",
    "press",
    "tap",
    "hit",
    "push",
    "choose",
    "select",
    "pick",
    "open",
    "go",
    "navigate",
    "visit",
    "focus",
    "fill",
    "type",
    "enter",
    "put",
    "write",
    "scroll",
    "highlight",
    "show",
    "use",
    "activate",
    "check",
    "uncheck",
    "tick",
    "untick",
    "do",
    "does",
    "labeled",
    "labelled",
    "named",
    "called",
    "saying",
    "says",
    "text",
    "on",
    "in",
    "of",
    "inside",
    "within",
    "under",
    "beside",
    "near",
    "one",
    "ones",
    "s",
    "hey",
    "ok",
    "um",
    "uh",
    "screen",
    "page",
    "view",
    "see",
    "get",
    "take",
    "bring",
];

/// Filler words inside element names: not counted when asking how much of a name a
/// description covers ("Add to cart" is covered by "add cart").
pub const NAME_STOPWORDS: &[&str] = &[
    "a", "an", "the", "to", "of", "and", "or", "for", "in", "on", "at", "with", "by", "from",
    "your", "my", "our", "is", "are", "it", "this", "that",
];

/// Role words that also imply a container: "the second result" counts results in lists,
/// feeds and tables, not the site's header links.
pub const IMPLIED_CONTAINERS: &[(&str, &[&str])] =
    &[("result", &["list", "feed", "table", "grid"])];

/// What a superlative compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// An amount of money (`$130`, `€9.50`).
    Price,
    /// A duration (`11h 21m`, `2 hours`, `45 min`).
    Duration,
}

/// Superlatives: `(word, measure, smallest?)`. "most"/"least" + "expensive" are read by the
/// parser; the measure nouns in [`MEASURE_NOUNS`] are not content words.
pub const SUPERLATIVES: &[(&str, Measure, bool)] = &[
    ("cheapest", Measure::Price, true),
    ("priciest", Measure::Price, false),
    ("dearest", Measure::Price, false),
    ("shortest", Measure::Duration, true),
    ("quickest", Measure::Duration, true),
    ("fastest", Measure::Duration, true),
    ("longest", Measure::Duration, false),
    ("slowest", Measure::Duration, false),
];

/// Nouns naming what a superlative measures ("the cheapest cost", "the longest duration").
pub const MEASURE_NOUNS: &[&str] = &[
    "cost", "costs", "price", "prices", "fare", "duration", "time", "length", "flight", "trip",
    "journey",
];

/// Verbs of taking a product (the "owner" feature): a description with one
/// ("I'll take the French press", "put the kettle in my basket", "buy the mug") that names an
/// item means the item's own add-to-cart control. Words as written (before synonyms).
pub const PURCHASE_VERBS: &[&str] = &[
    "add", "buy", "purchase", "take", "put", "grab", "get", "want", "order",
];

/// Verbs that say which kind of control is meant, a soft preference (not a constraint):
/// `(verb, roles)`. "where do I type a new task" → a field.
pub const VERB_ROLES: &[(&str, &[&str])] = &[
    ("type", roles::FIELD),
    ("enter", roles::FIELD),
    ("fill", roles::FIELD),
    ("write", roles::FIELD),
    ("tick", roles::CHECKBOX),
    ("untick", roles::CHECKBOX),
    ("uncheck", roles::CHECKBOX),
];

/// First words that make an element name a verb phrase ("Add to cart", "Proceed to
/// checkout"): a description without any verb ("the cart") names a thing, so it means the
/// element whose name's head is that thing ("Cart (2)") before the one whose name only has it
/// as the verb's object. Canonical words.
pub const NAME_VERBS: &[&str] = &[
    "add", "remove", "delete", "buy", "view", "go", "proceed", "continue", "clear", "apply",
    "save", "cancel", "edit", "update", "empty", "back", "return",
];

/// Roles of an item that owns the controls inside it (a product's list item or table row).
pub const OWNER_ROLES: &[&str] = &["listitem", "row", "article", "group", "gridcell", "cell"];
