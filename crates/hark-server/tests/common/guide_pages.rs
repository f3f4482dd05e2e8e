//! Reading the user guide's pages (`docs/guide/`): every page, and the fenced blocks of one.
//! Shared by the guide's tests through `#[path = "common/guide_pages.rs"] mod guide_pages;`.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};

/// The guide's folder, `docs/guide/` of this repository.
pub fn guide_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide")
}

/// Every `.md` file under the guide, relative to it, sorted.
pub fn pages() -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, base, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(base).unwrap().to_string_lossy();
                out.push(rel.replace('\\', "/"));
            }
        }
    }
    let base = guide_dir();
    let mut out = Vec::new();
    walk(&base, &base, &mut out);
    out
}

/// One fenced block of a page.
#[derive(Debug, Clone)]
pub struct Block {
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The info string's comma-separated words (`["toml", "check-fails"]`).
    pub info: Vec<String>,
    /// The text between the fences, each line ending with `\n`.
    pub body: String,
}

impl Block {
    pub fn lang(&self) -> &str {
        self.info.first().map(String::as_str).unwrap_or("")
    }

    pub fn has(&self, word: &str) -> bool {
        self.info.iter().skip(1).any(|w| w == word)
    }
}

/// The fenced blocks of a page, in order (a fence's indentation is removed from its lines).
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(Block, usize)> = None;
    for (index, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        let indent = raw.len() - trimmed.len();
        if let Some(rest) = trimmed.strip_prefix("```") {
            match open.take() {
                None => {
                    let info = rest
                        .split(',')
                        .map(|w| w.trim().to_string())
                        .filter(|w| !w.is_empty())
                        .collect();
                    let block = Block {
                        line: index + 1,
                        info,
                        body: String::new(),
                    };
                    open = Some((block, indent));
                }
                Some((block, _)) => out.push(block),
            }
            continue;
        }
        if let Some((block, indent)) = open.as_mut() {
            let cut = raw
                .char_indices()
                .take_while(|(i, c)| *i < *indent && c.is_whitespace())
                .count();
            block.body.push_str(&raw[cut..]);
            block.body.push('\n');
        }
    }
    assert!(open.is_none(), "a code fence is not closed");
    out
}
