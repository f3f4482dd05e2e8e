//! The screen as the local classifier reads it: a typed [`A11ySnapshot`] flattened into a flat
//! tree, or the `<ui_state>` text (the UI worker's rendering) parsed back into the same.
//!
//! One [`Node`] per line, in document (pre-order) order, with its depth, parent, role, name,
//! value, state tags, `level`/`cols`/`rows` and ref. Each node also carries its normalised
//! tokens (name, value, context), computed once per screen so a question over 255 options
//! allocates nothing per option.
//!
//! The text format does not escape quotes or newlines inside names (as pipecat), so parsing is
//! best-effort for such names: tags are peeled from the right, then `"name" = "value"` is split
//! at the first `" = "`; a line that is not a node line (a continuation of a multi-line name,
//! the `<selection>` block) is skipped.

use std::collections::HashMap;

use hark_rtvi::{A11yNode, A11ySnapshot};

use super::text::{Tokens, tokenize};

/// State tags as bits (the snapshot's states: `focused`, `expanded`, `selected`, `disabled`,
/// `checked`, `offscreen`).
pub mod state {
    /// `[focused]`.
    pub const FOCUSED: u8 = 1;
    /// `[expanded]`.
    pub const EXPANDED: u8 = 2;
    /// `[selected]`.
    pub const SELECTED: u8 = 4;
    /// `[disabled]`.
    pub const DISABLED: u8 = 8;
    /// `[checked]`.
    pub const CHECKED: u8 = 16;
    /// `[offscreen]`.
    pub const OFFSCREEN: u8 = 32;

    /// The bit of a state tag, 0 for a tag the walker does not emit.
    pub fn bit(tag: &str) -> u8 {
        match tag {
            "focused" => FOCUSED,
            "expanded" => EXPANDED,
            "selected" => SELECTED,
            "disabled" => DISABLED,
            "checked" => CHECKED,
            "offscreen" => OFFSCREEN,
            _ => 0,
        }
    }
}

/// One node of the screen.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// Depth below the root (root = 0).
    pub depth: usize,
    /// Index of the parent node, `None` for the root.
    pub parent: Option<usize>,
    /// ARIA role.
    pub role: String,
    /// Accessible name (`""` when none).
    pub name: String,
    /// Value (`""` when none).
    pub value: String,
    /// State tags as [`state`] bits.
    pub state: u8,
    /// `[level=N]`.
    pub level: Option<i64>,
    /// `[cols=N]`.
    pub cols: Option<i64>,
    /// `[rows=N]`.
    pub rows: Option<i64>,
    /// Ref (`""` for text nodes).
    pub ref_: String,
    /// Normalised tokens of the name.
    pub name_tokens: Tokens,
    /// Normalised tokens of the value.
    pub value_tokens: Tokens,
    /// Normalised tokens of the context: names of up to three ancestors and the text of
    /// unnamed-ref siblings (a table row's cells, a list item's text).
    pub context_tokens: Tokens,
}

impl Node {
    /// Whether the node has state bit `bit`.
    pub fn has(&self, bit: u8) -> bool {
        self.state & bit != 0
    }
}

/// A parsed screen: nodes in document order and an index by ref.
#[derive(Debug, Clone, Default)]
pub struct ScreenTree {
    /// Nodes in document (pre-order) order; `nodes[0]` is the root when not empty.
    pub nodes: Vec<Node>,
    /// Ref → node index.
    pub by_ref: HashMap<String, usize>,
}

impl ScreenTree {
    /// Parses a `<ui_state>` block. Text outside the block markers, the
    /// `<selection>` block and lines that are not node lines are ignored; an empty or foreign
    /// text gives an empty tree. Never fails.
    pub fn parse(text: &str) -> Self {
        let mut nodes: Vec<Node> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut in_selection = false;
        for line in text.lines() {
            if in_selection {
                if line == "</selection>" {
                    in_selection = false;
                }
                continue;
            }
            if line.starts_with("<selection ") {
                in_selection = true;
                continue;
            }
            let trimmed = line.trim_start_matches(' ');
            let indent = line.len() - trimmed.len();
            let Some(body) = trimmed.strip_prefix("- ") else {
                continue;
            };
            let depth = indent / 2;
            let mut node = parse_line(body);
            while stack.len() > depth {
                stack.pop();
            }
            node.depth = stack.len();
            node.parent = stack.last().copied();
            stack.push(nodes.len());
            nodes.push(node);
        }
        Self::finish(nodes)
    }

    /// Flattens a typed snapshot the same way [`ScreenTree::parse`] reads its rendering.
    pub fn from_snapshot(snapshot: &A11ySnapshot) -> Self {
        let mut nodes = Vec::new();
        let mut stack: Vec<(&A11yNode, usize, Option<usize>)> = vec![(&snapshot.root, 0, None)];
        while let Some((n, depth, parent)) = stack.pop() {
            let index = nodes.len();
            nodes.push(Node {
                depth,
                parent,
                role: n.role.to_string(),
                name: n.name.as_deref().unwrap_or_default().to_string(),
                value: n.value().unwrap_or_default().to_string(),
                state: n.state().iter().fold(0, |acc, t| acc | state::bit(t)),
                level: n.level(),
                cols: n.colcount(),
                rows: n.rowcount(),
                ref_: n.ref_.to_string(),
                ..Node::default()
            });
            stack.extend(n.children.iter().rev().map(|c| (c, depth + 1, Some(index))));
        }
        Self::finish(nodes)
    }

    fn finish(mut nodes: Vec<Node>) -> Self {
        let mut by_ref = HashMap::with_capacity(nodes.len());
        for (i, n) in nodes.iter_mut().enumerate() {
            n.name_tokens = tokenize(&n.name);
            n.value_tokens = tokenize(&n.value);
            if !n.ref_.is_empty() {
                by_ref.entry(n.ref_.to_string()).or_insert(i);
            }
        }
        // Children lists, for sibling context.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            if let Some(p) = n.parent {
                children[p].push(i);
            }
        }
        let children = children;
        for i in 0..nodes.len() {
            let mut ctx: Vec<usize> = Vec::new();
            // Ancestors' names, nearest first, up to three.
            let mut p = nodes[i].parent;
            let mut hops = 0;
            while let Some(pi) = p {
                if hops < 3 && !nodes[pi].name.is_empty() {
                    ctx.push(pi);
                }
                p = nodes[pi].parent;
                hops += 1;
            }
            // A cell's column header.
            if matches!(nodes[i].role.as_str(), "cell" | "gridcell")
                && let Some(header) = column_header(&nodes, &children, i)
            {
                ctx.push(header);
            }
            // Siblings in a row, list item or small group: the text beside a checkbox, the
            // other cells of a row.
            if let Some(pi) = nodes[i].parent {
                let small = matches!(nodes[pi].role.as_str(), "row" | "listitem")
                    || children[pi].len() <= 6;
                if small {
                    ctx.extend(
                        children[pi]
                            .iter()
                            .copied()
                            .filter(|&s| s != i && !nodes[s].name.is_empty()),
                    );
                }
                // A control in a cell sees the other cells of its row.
                if matches!(nodes[pi].role.as_str(), "cell" | "gridcell")
                    && let Some(row) = nodes[pi].parent
                {
                    ctx.extend(
                        children[row]
                            .iter()
                            .copied()
                            .filter(|&c| c != pi && !nodes[c].name.is_empty()),
                    );
                }
            }
            let mut tokens: Tokens = ctx
                .iter()
                .flat_map(|&c| nodes[c].name_tokens.iter().cloned())
                .collect();
            // The words of container roles ("dialog", "footer", …) of any ancestor.
            let mut p = nodes[i].parent;
            while let Some(pi) = p {
                if let Some(word) = container_role_word(&nodes[pi].role)
                    && !tokens.iter().any(|t| t.word == word)
                {
                    tokens.push(super::text::Tok {
                        word: word.to_string(),
                        stop: false,
                    });
                }
                p = nodes[pi].parent;
            }
            nodes[i].context_tokens = tokens;
        }
        Self { nodes, by_ref }
    }

    /// This tree with its node refs replaced by `refs` (one per node, in order, as
    /// [`skeleton`] reads them from a text of the same skeleton) and [`ScreenTree::by_ref`]
    /// rebuilt: what [`ScreenTree::parse`] gives for that text. `refs` shorter than the nodes
    /// leaves the remaining refs as they were.
    pub fn with_refs(&self, refs: &[&str]) -> ScreenTree {
        let mut nodes = self.nodes.clone();
        let mut by_ref = HashMap::with_capacity(nodes.len());
        for (i, (n, r)) in nodes.iter_mut().zip(refs).enumerate() {
            n.ref_.clear();
            n.ref_.push_str(r);
            if !r.is_empty() {
                by_ref.entry(n.ref_.to_string()).or_insert(i);
            }
        }
        ScreenTree { nodes, by_ref }
    }

    /// Children of every node, in order.
    pub fn children(&self) -> Vec<Vec<usize>> {
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(p) = n.parent {
                children[p].push(i);
            }
        }
        children
    }

    /// Whether node `i` is a (strict) descendant of node `ancestor`.
    pub fn is_descendant(&self, i: usize, ancestor: usize) -> bool {
        let mut p = self.nodes[i].parent;
        while let Some(pi) = p {
            if pi == ancestor {
                return true;
            }
            p = self.nodes[pi].parent;
        }
        false
    }
}

/// The word a user says for a container role, if it is one.
fn container_role_word(role: &str) -> Option<&'static str> {
    Some(match role {
        "dialog" | "alertdialog" => "dialog",
        "navigation" => "navigation",
        "banner" => "header",
        "contentinfo" => "footer",
        "form" => "form",
        "complementary" => "sidebar",
        "menu" | "menubar" => "menu",
        "table" | "grid" | "treegrid" => "table",
        "toolbar" => "toolbar",
        _ => return None,
    })
}

/// The column header of cell `cell`: the header at the cell's position in the first row of
/// its table that has column headers.
fn column_header(nodes: &[Node], children: &[Vec<usize>], cell: usize) -> Option<usize> {
    let row = nodes[cell].parent?;
    let column = children[row].iter().position(|&c| c == cell)?;
    let mut table = nodes[row].parent?;
    if nodes[table].role == "rowgroup" {
        table = nodes[table].parent?;
    }
    let rows = children[table].iter().flat_map(|&r| {
        if nodes[r].role == "rowgroup" {
            children[r].clone()
        } else {
            vec![r]
        }
    });
    for r in rows {
        let kids = &children[r];
        if kids.iter().any(|&k| nodes[k].role == "columnheader") {
            return kids
                .get(column)
                .copied()
                .filter(|&h| nodes[h].role == "columnheader" && !nodes[h].name.is_empty());
        }
    }
    None
}

/// Marks in a [`skeleton`]: a line ends with `"\n\n"`; a non-empty ref value left out is
/// `"\n\u{1}"`, an empty one `"\n\u{2}"`. A line never holds `'\n'`, so a skeleton reads
/// back one way only.
const LINE_END: &str = "\n\n";
const REF_HOLE: &str = "\n\u{1}";
const EMPTY_REF_HOLE: &str = "\n\u{2}";

/// Writes to `out` the skeleton of a `<ui_state>` text: every line [`ScreenTree::parse`]
/// reads, with the values of the node lines' `[ref=…]` tags left out, and pushes to `refs`
/// each node's ref (one per node line, in order, `""` when it has none), borrowed from
/// `text`. A live session's snapshots keep their page and renumber every ref, so
/// its questions' texts differ only there.
///
/// Two texts with the same skeleton parse to the same tree except for the nodes' refs
/// (and so [`ScreenTree::by_ref`]): the parse reads a line's structure from the same bytes,
/// and a ref value (text without `[` or `]`, else the tag is not peeled and stays in the
/// skeleton) takes part in no decision; whether it is empty is in the skeleton. Nothing is
/// allocated beyond `out` and `refs` growing.
pub fn skeleton<'t>(text: &'t str, out: &mut String, refs: &mut Vec<&'t str>) {
    let mut in_selection = false;
    // Value ranges of one line's ref tags (within the line), right to left.
    let mut holes: Vec<(usize, usize)> = Vec::new();
    for line in text.lines() {
        if in_selection {
            if line == "</selection>" {
                in_selection = false;
            }
            out.push_str(line);
            out.push_str(LINE_END);
            continue;
        }
        if line.starts_with("<selection ") {
            in_selection = true;
            out.push_str(line);
            out.push_str(LINE_END);
            continue;
        }
        let trimmed = line.trim_start_matches(' ');
        let Some(body) = trimmed.strip_prefix("- ") else {
            out.push_str(line);
            out.push_str(LINE_END);
            continue;
        };
        let start = line.len() - body.len();
        // As `parse_line` peels its tags; the last ref tag of the line is the node's.
        let mut rest = body.strip_suffix(':').unwrap_or(body);
        holes.clear();
        while rest.ends_with(']') {
            let Some(open) = rfind_tag_open(rest) else {
                break;
            };
            let tag = &rest[open + 2..rest.len() - 1];
            if tag.bytes().any(|b| b == b'[' || b == b']') {
                break;
            }
            if tag.starts_with("ref=") {
                holes.push((start + open + 6, start + rest.len() - 1));
            }
            rest = &rest[..open];
        }
        refs.push(holes.first().map_or("", |&(a, b)| &line[a..b]));
        let mut at = 0;
        for &(a, b) in holes.iter().rev() {
            out.push_str(&line[at..a]);
            out.push_str(if a == b { EMPTY_REF_HOLE } else { REF_HOLE });
            at = b;
        }
        out.push_str(&line[at..]);
        out.push_str(LINE_END);
    }
}

/// `text.rfind(" [")`, scanning bytes back from the end (a tag is near the end of its
/// line).
fn rfind_tag_open(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    (1..b.len())
        .rev()
        .find(|&i| b[i] == b'[' && b[i - 1] == b' ')
        .map(|i| i - 1)
}

/// One node line without its indent and `- `.
fn parse_line(body: &str) -> Node {
    let mut rest = body.strip_suffix(':').unwrap_or(body);
    let mut node = Node::default();
    let mut tags: Vec<&str> = Vec::new();
    // Peel ` [tag]` from the right until the rest ends with a quote or has no more tags.
    while rest.ends_with(']') {
        let Some(open) = rest.rfind(" [") else { break };
        let tag = &rest[open + 2..rest.len() - 1];
        if tag.contains('[') || tag.contains(']') {
            break;
        }
        tags.push(tag);
        rest = &rest[..open];
    }
    for tag in tags.into_iter().rev() {
        if let Some(r) = tag.strip_prefix("ref=") {
            node.ref_ = r.to_string();
        } else if let Some(v) = tag.strip_prefix("level=") {
            node.level = v.parse().ok();
        } else if let Some(v) = tag.strip_prefix("cols=") {
            node.cols = v.parse().ok();
        } else if let Some(v) = tag.strip_prefix("rows=") {
            node.rows = v.parse().ok();
        } else {
            node.state |= state::bit(tag);
        }
    }
    let (role, quoted) = match rest.find(' ') {
        Some(sp) => (&rest[..sp], &rest[sp + 1..]),
        None => (rest, ""),
    };
    node.role = role.to_string();
    if let Some(v) = quoted.strip_prefix("= \"") {
        node.value = v.strip_suffix('"').unwrap_or(v).to_string();
    } else if let Some(q) = quoted.strip_prefix('"') {
        let q = q.strip_suffix('"').unwrap_or(q);
        match q.find("\" = \"") {
            Some(split) => {
                node.name = q[..split].to_string();
                node.value = q[split + 5..].to_string();
            }
            None => node.name = q.to_string(),
        }
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC_RENDERED: &str = "<ui_state>
- generic [ref=e1]:
  - main [ref=e2]:
    - heading \"Checkout\" [level=1] [ref=e3]
    - textbox \"Email\" = \"ana@example.com\" [focused] [ref=e5]
    - checkbox \"Gift wrap\" [checked] [ref=e6]
    - combobox \"Country\" = \"Spain\" [ref=e7]:
      - option \"France\" [ref=e8]
      - option \"Spain\" [selected] [ref=e9]
    - text \"Total: 42 EUR\"
    - grid \"Trending\" [cols=8] [rows=2] [ref=e11]
    - button \"Pay [now]\" [disabled] [offscreen] [ref=e10]
<selection ref=\"e4\">
- not a node
</selection>
</ui_state>";

    /// `parse(text)` and the tree of another text with the same skeleton, given `text`'s
    /// refs, are the same tree.
    fn same_tree(a: &ScreenTree, b: &ScreenTree) {
        assert_eq!(format!("{:?}", a.nodes), format!("{:?}", b.nodes));
        assert_eq!(a.by_ref, b.by_ref);
    }

    fn read(text: &str) -> (String, Vec<&str>) {
        let (mut out, mut refs) = (String::new(), Vec::new());
        skeleton(text, &mut out, &mut refs);
        (out, refs)
    }

    #[test]
    fn texts_differing_only_in_ref_values_share_a_skeleton_and_a_tree() {
        let renumbered = SPEC_RENDERED
            .replace("ref=e1]", "ref=x100]")
            .replace("ref=e5]", "ref=x5b]")
            .replace("ref=e9]", "ref=e1]")
            .replace("ref=e10]", "ref=y10]");
        let (a, refs_a) = read(SPEC_RENDERED);
        let (b, refs_b) = read(&renumbered);
        assert_eq!(a, b);
        assert_eq!(refs_a.len(), 11);
        assert_eq!(refs_a[0], "e1");
        assert_eq!(refs_b[0], "x100");
        assert_eq!(refs_a[8], "", "the text node has no ref");
        // The <selection> block's line is not a node.
        assert!(a.contains("- not a node\n\n"));
        let tree_a = ScreenTree::parse(SPEC_RENDERED);
        same_tree(&ScreenTree::parse(&renumbered), &tree_a.with_refs(&refs_b));
        same_tree(&tree_a, &tree_a.with_refs(&refs_a));
    }

    #[test]
    fn a_skeleton_keeps_what_changes_the_tree() {
        let base = "<ui_state>\n- main [ref=e1]:\n  - button \"Pay\" [ref=e2]\n</ui_state>";
        let (skeleton_of_base, _) = read(base);
        for other in [
            // An empty ref is not a ref.
            "<ui_state>\n- main [ref=e1]:\n  - button \"Pay\" [ref=]\n</ui_state>",
            // A ref with a bracket is not peeled: it is part of the name's line.
            "<ui_state>\n- main [ref=e1]:\n  - button \"Pay\" [ref=e[2]\n</ui_state>",
            "<ui_state>\n- main [ref=e1]:\n  - button \"Pay!\" [ref=e2]\n</ui_state>",
            "<ui_state>\n- main [ref=e1]:\n    - button \"Pay\" [ref=e2]\n</ui_state>",
            "<ui_state>\n- main [ref=e1]:\n  - button \"Pay\" [ref=e2] [focused]\n</ui_state>",
        ] {
            assert_ne!(read(other).0, skeleton_of_base, "{other}");
        }
        for t in ["a [b] [c]", "[x]", " [", "a [", "no tag", "", "x  [[y]"] {
            assert_eq!(rfind_tag_open(t), t.rfind(" ["), "{t:?}");
        }
        // Two ref tags: the last is the node's, as the parse reads it.
        let two = "<ui_state>\n- button \"Pay\" [ref=a] [ref=b]\n</ui_state>";
        let (_, refs) = read(two);
        assert_eq!(refs, ["b"]);
        assert_eq!(ScreenTree::parse(two).nodes[0].ref_, "b");
        let (s2, _) = read("<ui_state>\n- button \"Pay\" [ref=c] [ref=d]\n</ui_state>");
        assert_eq!(read(two).0, s2);
    }

    /// Texts built from tricky lines (names with brackets, `ref=` inside names, several ref
    /// tags, `\r\n`, a selection block) and tricky ref values: whenever two texts share a
    /// skeleton, the second parses to the first's tree with the second's refs.
    #[test]
    fn a_shared_skeleton_always_means_the_same_tree() {
        const LINES: [&str; 9] = [
            "- button \"Pay [now]\" [disabled] [ref={R}]",
            "  - link \"x [ref=e9]\" [ref={R}]:",
            "  - textbox \"Email\" = \"a [b]\" [focused] [ref={R}] [ref={R}]",
            "    - cell \"[ref={R}]\"",
            "- heading \"Title\" [level=2] [ref={R}]\r",
            "<selection ref=\"{R}\">\n- option \"In the block\" [ref={R}]\n</selection>",
            "  - text \"plain\"",
            "- row [ref={R}]:",
            "    - gridcell \"a\" [ref={R}] [selected]",
        ];
        const REFS: [&str; 8] = ["e1", "x9", "", "a b", "a]b", "[", "ref=e2", "e1:"];
        let texts: Vec<String> = REFS
            .iter()
            .flat_map(|a| REFS.iter().map(move |b| (a, b)))
            .map(|(a, b)| {
                let body: Vec<String> = LINES
                    .iter()
                    .enumerate()
                    .map(|(i, l)| l.replace("{R}", if i % 2 == 0 { a } else { b }))
                    .collect();
                format!("<ui_state>\n{}\n</ui_state>", body.join("\n"))
            })
            .collect();
        let mut shared = 0;
        for a in &texts {
            let (skeleton_a, _) = read(a);
            let tree_a = ScreenTree::parse(a);
            for b in &texts {
                let (skeleton_b, refs_b) = read(b);
                if skeleton_a == skeleton_b {
                    shared += 1;
                    same_tree(&ScreenTree::parse(b), &tree_a.with_refs(&refs_b));
                }
            }
        }
        // Every text shares its own; the plain refs share one another's.
        assert!(shared > texts.len() * 2, "{shared} pairs");
    }

    #[test]
    fn parses_the_spec_rendering() {
        let t = ScreenTree::parse(SPEC_RENDERED);
        assert_eq!(t.nodes.len(), 11);
        let email = &t.nodes[t.by_ref["e5"]];
        assert_eq!(
            (
                email.role.as_str(),
                email.name.as_str(),
                email.value.as_str()
            ),
            ("textbox", "Email", "ana@example.com")
        );
        assert!(email.has(state::FOCUSED));
        assert_eq!(email.depth, 2);
        assert_eq!(t.nodes[t.by_ref["e3"]].level, Some(1));
        let spain = t.by_ref["e9"];
        assert_eq!(t.nodes[spain].parent, Some(t.by_ref["e7"]));
        assert!(t.nodes[spain].has(state::SELECTED));
        let total = &t.nodes[8];
        assert_eq!(
            (total.role.as_str(), total.name.as_str()),
            ("text", "Total: 42 EUR")
        );
        assert_eq!(total.ref_, "");
        let grid = &t.nodes[t.by_ref["e11"]];
        assert_eq!((grid.cols, grid.rows), (Some(8), Some(2)));
        let pay = &t.nodes[t.by_ref["e10"]];
        assert_eq!(pay.name, "Pay [now]");
        assert!(pay.has(state::DISABLED) && pay.has(state::OFFSCREEN));
        assert!(t.is_descendant(spain, 0));
    }
}
