//! The user guide (`docs/guide/`) holds together: every page the index links to exists, every
//! relative link of every page resolves, every page is reachable from an index, and every page
//! with a `rust` block is run as a doctest by `src/guide_doctests.rs` (no page silently skipped).
//! A code fence without a language would be run by rustdoc as Rust, so every fence names one.

use std::collections::BTreeSet;
use std::path::Path;

#[path = "common/guide_pages.rs"]
mod guide_pages;
use guide_pages::{guide_dir, pages};

/// Pages about Hark in Python: their examples are Python, run by `python/tests/test_guide_python.py`
/// (`scripts/test.sh` step 5), not Rust doctests; and Python has no agent-file way of its own.
const PYTHON_PAGES: [&str; 1] = ["python.md"];

fn read(rel: &str) -> String {
    std::fs::read_to_string(guide_dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The info strings of the opening fences of a page, in order.
fn fences(text: &str) -> Vec<String> {
    let mut open = false;
    let mut infos = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("```") {
            if !open {
                infos.push(rest.trim().to_string());
            }
            open = !open;
        }
    }
    assert!(!open, "a code fence is not closed");
    infos
}

/// The targets of the Markdown links of a page (`[text](target)`), outside code fences.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// Resolves a relative link of `page` to a guide path; `None` for an external link or an anchor.
fn resolve(page: &str, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
        return None;
    }
    let target = target.split('#').next().unwrap_or(target);
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for piece in target.split('/') {
        match piece {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// The guide pages `src/guide_doctests.rs` includes, relative to the guide.
fn included() -> Vec<String> {
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/guide_doctests.rs"),
    )
    .unwrap();
    let prefix = "include_str!(\"../../../docs/guide/";
    source
        .lines()
        .filter_map(|line| {
            let start = line.find(prefix)? + prefix.len();
            let end = line[start..].find('"')? + start;
            Some(line[start..end].to_string())
        })
        .collect()
}

#[test]
fn every_page_the_index_links_exists() {
    let index = read("README.md");
    let linked: Vec<String> = links(&index)
        .iter()
        .filter_map(|t| resolve("README.md", t))
        .collect();
    assert!(linked.len() >= 20, "the index links {} pages", linked.len());
    for page in &linked {
        assert!(
            guide_dir().join(page).is_file(),
            "the index links {page}, which does not exist"
        );
    }
}

#[test]
fn every_relative_link_of_every_page_resolves() {
    for page in pages() {
        for target in links(&read(&page)) {
            let Some(path) = resolve(&page, &target) else {
                continue;
            };
            assert!(
                guide_dir().join(&path).is_file(),
                "{page} links {target}, which does not exist"
            );
        }
    }
}

#[test]
fn every_page_is_reachable_from_an_index() {
    let mut reached = BTreeSet::new();
    for index in ["README.md", "troubleshooting/README.md"] {
        reached.insert(index.to_string());
        for target in links(&read(index)) {
            if let Some(path) = resolve(index, &target) {
                reached.insert(path);
            }
        }
    }
    for page in pages() {
        assert!(reached.contains(&page), "{page} is linked from no index");
    }
}

#[test]
fn every_fence_names_its_language() {
    for page in pages() {
        for info in fences(&read(&page)) {
            assert!(
                !info.is_empty(),
                "{page} has a code fence without a language: rustdoc would run it as Rust"
            );
        }
    }
}

#[test]
fn every_page_with_rust_is_run_as_a_doctest_and_no_page_is_skipped() {
    let included = included();
    let mut with_rust = Vec::new();
    for page in pages() {
        let rust = fences(&read(&page))
            .iter()
            .filter(|info| info.split(',').next().map(str::trim) == Some("rust"))
            .count();
        let is_index = page.ends_with("README.md");
        if is_index {
            assert_eq!(rust, 0, "{page}: an index holds no examples");
            continue;
        }
        if PYTHON_PAGES.contains(&page.as_str()) {
            let python = fences(&read(&page))
                .iter()
                .filter(|info| info.trim() == "python")
                .count();
            assert!(python > 0, "{page} is a Python page with no Python example");
            assert!(
                !included.contains(&page),
                "{page} is a Python page: its examples are not Rust doctests"
            );
            continue;
        }
        assert!(rust > 0, "{page} has no Rust example");
        assert!(
            included.contains(&page),
            "{page} has {rust} rust block(s) but src/guide_doctests.rs does not include it"
        );
        with_rust.push(page);
    }
    for page in &included {
        assert!(
            guide_dir().join(page).is_file(),
            "guide_doctests.rs includes {page}, which does not exist"
        );
    }
    assert_eq!(
        included.len(),
        with_rust.len(),
        "a page is included twice: {included:?}"
    );
}

/// Every page of a part shows the Rust way and the agent-file way (or says there that
/// the part is Rust only). The pages about the agent file itself, its reference and the proxy
/// are the exceptions; troubleshooting pages say it inline where it applies ("In an agent
/// file.").
#[test]
fn every_part_has_an_agent_file_section() {
    let exceptions = [
        "agent-files.md",
        "agent-file-reference.md",
        "behind-a-proxy.md",
        "custom-client.md",
    ];
    let index = read("README.md");
    let parts: Vec<String> = links(&index)
        .iter()
        .filter_map(|t| resolve("README.md", t))
        .filter(|p| {
            !p.starts_with("troubleshooting/")
                && !exceptions.contains(&p.as_str())
                && !PYTHON_PAGES.contains(&p.as_str())
        })
        .collect();
    assert!(parts.len() >= 15, "the index links {} parts", parts.len());
    let missing: Vec<&String> = parts
        .iter()
        .filter(|page| !read(page).lines().any(|l| l == "## The agent-file way"))
        .collect();
    assert!(
        missing.is_empty(),
        "pages without a \"## The agent-file way\" section: {missing:?}"
    );
}
