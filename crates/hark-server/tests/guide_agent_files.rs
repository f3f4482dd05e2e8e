//! Every agent file of the user guide (`docs/guide/`) goes through the real `hark check`, so no
//! agent-file example in the guide can drift from the format.
//!
//! The convention the guide's pages follow (`docs/guide/agent-files.md` says it for readers):
//!
//! - A fence ```` ```toml ```` holds a whole agent file. It is written to `agent.toml` in a
//!   fresh temporary directory and `hark check agent.toml` runs there: it must exit with 0. When
//!   the next fence on the page is a ```` ```text ```` block whose first line starts with
//!   `agent.toml`, that block is `hark check`'s exact output.
//! - A fence ```` ```toml,check-fails ```` holds a whole agent file that must fail: `hark check`
//!   exits with 1 and the next fence on the page must be a ```` ```text ```` block holding its
//!   exact output (the file named `agent.toml`, as the test runs it).
//! - A fence ```` ```toml,fragment ```` is a part shown for explanation and is not checked; a
//!   page with one must also have a checked whole file.
//! - A fence ```` ```toml,cargo ```` is not an agent file: it is the `[dependencies]` of the
//!   page's Rust examples, which `tests/guide_new_crates.rs` builds as new crates.
//!
//! The environment `hark check` sees is cleared, then, for every block unless its fence also
//! says `env-unset` (```` ```toml,check-fails,env-unset ````): each variable named by an
//! `api_key_env = "NAME"` or `env = "NAME"` key is set to the dummy key
//! [`DUMMY_KEY`], and each `${NAME}` placeholder to [`DUMMY_URL`]. So a clean example's output
//! is the summary with its LLM (no "key not set" warning), and a page can still show the
//! warning or the unset-placeholder error with `env-unset`.

use std::collections::BTreeSet;
use std::process::Command;

#[path = "common/guide_pages.rs"]
mod guide_pages;
use guide_pages::{Block, blocks, guide_dir, pages};

const HARK: &str = env!("CARGO_BIN_EXE_hark");

/// The value given to every variable an example names in a `*_env` / `env` key.
const DUMMY_KEY: &str = "guide-test-not-a-real-key";
/// The value given to every `${NAME}` placeholder of an example.
const DUMMY_URL: &str = "https://hooks.example.com";

/// The quoted values of `key = "VALUE"` lines (also inside inline tables: `env = "X"`).
fn quoted_values_of(body: &str, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find(key) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + key.len()..].trim_start();
        rest = &rest[i + key.len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some(after) = after.strip_prefix('=') else {
            continue;
        };
        let Some(after) = after.trim_start().strip_prefix('"') else {
            continue;
        };
        if let Some(end) = after.find('"') {
            out.push(after[..end].to_string());
        }
    }
    out
}

/// The names of the `${NAME}` placeholders of a block.
fn placeholders(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find("${") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find('}') {
            out.push(rest[..end].to_string());
        }
    }
    out
}

/// The environment a block's check runs with (see the module docs).
fn environment(block: &Block) -> Vec<(String, String)> {
    if block.has("env-unset") {
        return Vec::new();
    }
    let mut env: Vec<(String, String)> = Vec::new();
    for key in ["api_key_env", "env"] {
        for name in quoted_values_of(&block.body, key) {
            env.push((name, DUMMY_KEY.to_string()));
        }
    }
    for name in placeholders(&block.body) {
        env.push((name, DUMMY_URL.to_string()));
    }
    env
}

/// Runs `hark check agent.toml` on `body` in a fresh directory: exit code and stdout.
fn check(body: &str, env: &[(String, String)], id: usize) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!(
        "hark-guide-agent-files-{}-{id}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("agent.toml"), body).unwrap();
    let mut command = Command::new(HARK);
    command
        .args(["--log", "warn", "check", "agent.toml"])
        .current_dir(&dir)
        .env_clear();
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("run hark check");
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Checks every agent-file block of `page`; problems go to `failures`. Returns how many whole
/// files were checked and how many fragments were seen.
fn check_page(
    page: &str,
    text: &str,
    failures: &mut Vec<String>,
    id: &mut usize,
) -> (usize, usize) {
    let blocks = blocks(text);
    let mut checked = 0;
    let mut fragments = 0;
    for (i, block) in blocks.iter().enumerate() {
        if block.lang() != "toml" {
            continue;
        }
        if block.has("cargo") {
            // A Cargo.toml `[dependencies]` table for the page's Rust examples, built by
            // tests/guide_new_crates.rs; not an agent file.
            continue;
        }
        if block.has("fragment") {
            fragments += 1;
            continue;
        }
        let fails = block.has("check-fails");
        let known = ["check-fails", "fragment", "env-unset"];
        if let Some(word) = block
            .info
            .iter()
            .skip(1)
            .find(|w| !known.contains(&w.as_str()))
        {
            failures.push(format!(
                "{page}:{}: the fence names `{word}`; an agent-file fence is toml, \
                 toml,check-fails or toml,fragment (with env-unset); toml,cargo is a \
                 page's [dependencies]",
                block.line
            ));
            continue;
        }
        *id += 1;
        let (code, out) = check(&block.body, &environment(block), *id);
        checked += 1;
        let next = blocks.get(i + 1).filter(|b| b.lang() == "text");
        let expected_code = if fails { 1 } else { 0 };
        if code != expected_code {
            failures.push(format!(
                "{page}:{}: hark check exited with {code}, expected {expected_code}; it printed:\n{out}",
                block.line
            ));
            continue;
        }
        let shown = match next {
            Some(text) if fails || text.body.starts_with("agent.toml") => Some(text),
            _ if fails => {
                failures.push(format!(
                    "{page}:{}: a toml,check-fails block must be followed by a text block with \
                     hark check's exact output; hark check printed:\n{out}",
                    block.line
                ));
                None
            }
            _ => None,
        };
        if let Some(text) = shown
            && text.body != out
        {
            failures.push(format!(
                "{page}:{}: the text block does not match hark check's output.\n\
                 The page says:\n{}hark check printed:\n{out}",
                text.line, text.body
            ));
        }
    }
    if fragments > 0 && checked == 0 {
        failures.push(format!(
            "{page}: it has {fragments} toml,fragment block(s) but no whole agent file that is \
             checked"
        ));
    }
    (checked, fragments)
}

#[test]
fn every_agent_file_of_the_guide_passes_or_fails_hark_check_as_the_page_says() {
    let mut failures = Vec::new();
    let mut id = 0;
    let mut per_page = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(guide_dir().join(&page)).unwrap();
        let (checked, _) = check_page(&page, &text, &mut failures, &mut id);
        per_page.push((page, checked));
    }
    assert!(
        failures.is_empty(),
        "{} problem(s) with the guide's agent files:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The agent-file page itself shows a clean file and a failing one: if none were found the
    // extraction is broken, not the guide.
    let on_agent_files = per_page
        .iter()
        .find(|(page, _)| page == "agent-files.md")
        .map_or(0, |(_, n)| *n);
    assert!(
        on_agent_files >= 2,
        "agent-files.md has {on_agent_files} checked agent file(s); it shows at least a clean \
         one and a failing one"
    );
}

#[test]
fn the_extraction_reads_fences_infos_and_the_environment() {
    let page = "Intro.\n\n```toml,check-fails\nsystem_prompt = \"x\"\n[llm]\napi_key_env = \"K1\"\n\
                url = \"${BASE}/x\"\nauth = { kind = \"bearer\", env = \"T1\" }\n```\n\n\
                ```text\nagent.toml: 1 error\n```\n";
    let found = blocks(page);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].line, 3);
    assert_eq!(found[0].info, ["toml", "check-fails"]);
    assert!(found[0].has("check-fails") && !found[0].has("toml"));
    assert_eq!(found[1].body, "agent.toml: 1 error\n");
    let env: BTreeSet<(String, String)> = environment(&found[0]).into_iter().collect();
    let expected: BTreeSet<(String, String)> =
        [("K1", DUMMY_KEY), ("T1", DUMMY_KEY), ("BASE", DUMMY_URL)]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
    assert_eq!(env, expected);

    // A mismatched output is reported with the page's line.
    let mut failures = Vec::new();
    let mut id = 1000;
    let broken =
        "```toml,check-fails\nsystem_prompt = \"\"\n```\n```text\nagent.toml: nothing\n```\n";
    check_page("x.md", broken, &mut failures, &mut id);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].starts_with("x.md:4: the text block does not match"),
        "{failures:?}"
    );
}
