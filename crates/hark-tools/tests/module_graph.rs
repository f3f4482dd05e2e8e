//! The crate's files import each other one way: the vocabulary (`error`, `sink`, `outcome`,
//! `call`, `hooks`, `context`) at the bottom, the call path above it, and no file reaches back up
//! through a chain of `crate::…` paths to itself. (`scripts/import-cycles.py` prints the same
//! edges for any crate.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level module of every file under `src/` and the top-level modules its code (not its
/// comments, not its `#[cfg(test)] mod tests`) names through `crate::`.
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let top = |path: &Path| -> String {
        let rel = path.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|f| top(f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = top(file);
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code = match text.find("#[cfg(test)]\nmod tests") {
            Some(i) => &text[..i],
            None => &text,
        };
        let targets = edges.entry(from.clone()).or_default();
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or("");
            let mut rest = line;
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != from && modules.contains(&name) {
                    targets.insert(name);
                }
            }
        }
    }
    edges
}

#[test]
fn files_import_each_other_one_way_with_the_vocabulary_at_the_bottom() {
    let edges = edges();
    // Depth-first search for a path back to where it started.
    fn cycle(
        at: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == at) {
            let mut found = path[i..].to_vec();
            found.push(at.to_string());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_string());
        for next in edges.get(at).into_iter().flatten() {
            if let Some(found) = cycle(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for start in edges.keys() {
        let found = cycle(start, &edges, &mut Vec::new(), &mut done);
        assert!(
            found.is_none(),
            "an import cycle: {}",
            found.unwrap().join(" -> ")
        );
    }
    let vocabulary = ["error", "sink", "outcome", "call", "hooks", "context"];
    for word in vocabulary {
        let above: Vec<&String> = edges[word]
            .iter()
            .filter(|t| !vocabulary.contains(&t.as_str()))
            .collect();
        assert!(
            above.is_empty(),
            "{word} imports {above:?}, which is not vocabulary"
        );
    }
}
