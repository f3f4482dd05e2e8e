//! The command-line section of the guide's configuration reference
//! (`docs/guide/agent-file-reference.md`, "The `hark` command line") lists exactly the flags and
//! environment variables the real `hark` binary has: every `--flag` and every
//! `HARK_*` / `RUST_LOG` variable that `hark --help`, `hark serve --help` and `hark check --help`
//! print is in the section, and the section names no other. Each flag of `hark serve` is
//! described there with the words `--help` prints, and its default.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const HARK: &str = env!("CARGO_BIN_EXE_hark");

/// The heading the section starts at; it ends at the next `## ` heading.
const SECTION: &str = "## The `hark` command line";

fn help(args: &[&str]) -> String {
    let out = Command::new(HARK)
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run hark");
    assert!(out.status.success(), "hark {args:?} failed");
    String::from_utf8(out.stdout).expect("utf-8 help")
}

/// The command-line section of the reference page.
fn section() -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/agent-file-reference.md");
    let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let start = page
        .find(SECTION)
        .unwrap_or_else(|| panic!("agent-file-reference.md has no heading {SECTION:?}"));
    let rest = &page[start + SECTION.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// Every `--flag` in `text` (`--max-frame-bytes`, not `--max-frame-bytes <N>`'s value).
fn flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let before = start.checked_sub(1).map(|b| bytes[b]);
        let mut end = start + 2;
        while end < bytes.len()
            && (bytes[end].is_ascii_lowercase()
                || bytes[end].is_ascii_digit()
                || bytes[end] == b'-')
        {
            end += 1;
        }
        let word = &text[start..end];
        let starts_word = before.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'-'));
        if starts_word && word.len() > 2 && bytes[start + 2].is_ascii_lowercase() {
            out.insert(word.trim_end_matches('-').to_string());
        }
        i = end.max(start + 2);
    }
    out
}

/// Every `HARK_*` variable and `RUST_LOG` in `text`.
fn variables(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .filter(|w| (w.starts_with("HARK_") && w.len() > 5) || *w == "RUST_LOG")
        .map(String::from)
        .collect()
}

/// `hark serve --help`'s options: flag → (description without its `[default: …]`, default).
fn serve_options(help: &str) -> Vec<(String, String, Option<String>)> {
    let options = help
        .split("Options:\n")
        .nth(1)
        .expect("an Options section")
        .split("\n\n")
        .next()
        .unwrap();
    let mut out: Vec<(String, String, Option<String>)> = Vec::new();
    for line in options.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('-') && !line.starts_with("          ") {
            let flag = trimmed
                .split([' ', ','])
                .find(|w| w.starts_with("--"))
                .unwrap_or(trimmed)
                .to_string();
            out.push((flag, String::new(), None));
        } else if let Some(last) = out.last_mut() {
            if !last.1.is_empty() {
                last.1.push(' ');
            }
            last.1.push_str(trimmed);
        }
    }
    for option in &mut out {
        if let Some(at) = option.1.rfind(" [default: ") {
            let default = option.1[at + " [default: ".len()..]
                .trim_end_matches(']')
                .to_string();
            option.1.truncate(at);
            option.2 = Some(default);
        }
    }
    out
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_reference_lists_every_flag_and_variable_of_hark_and_no_other() {
    let helps = [
        help(&["--help"]),
        help(&["serve", "--help"]),
        help(&["check", "--help"]),
        help(&["worker", "--help"]),
    ]
    .join("\n");
    let section = section();

    let have = flags(&helps);
    let listed = flags(&section);
    let missing: Vec<_> = have.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&have).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the reference's command-line section and `hark --help` differ.\n\
         Flags hark has that the page does not list: {missing:?}\n\
         Flags the page lists that hark does not have: {extra:?}"
    );

    let have = variables(&helps);
    let listed = variables(&section);
    let missing: Vec<_> = have.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&have).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the reference's command-line section and `hark --help` differ.\n\
         Variables hark reads that the page does not list: {missing:?}\n\
         Variables the page lists that hark does not read: {extra:?}"
    );
    assert!(have.len() >= 10, "found only {have:?} in the help");
}

#[test]
fn each_serve_flag_is_described_with_the_words_and_default_of_its_help() {
    let section = squeeze(&section());
    let options = serve_options(&help(&["serve", "--help"]));
    assert!(options.len() >= 10, "{options:?}");
    let mut wrong = Vec::new();
    for (flag, description, default) in &options {
        if flag == "--help" {
            continue;
        }
        if !section.contains(&format!("| `{flag}")) {
            wrong.push(format!("{flag}: no table row starts with it"));
        }
        if !section.contains(&squeeze(description)) {
            wrong.push(format!(
                "{flag}: the page does not say, word for word: {description}"
            ));
        }
        if let Some(default) = default
            && !section.contains(&format!("`{default}`"))
        {
            wrong.push(format!(
                "{flag}: the page does not give its default `{default}`"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_extraction_finds_flags_and_variables() {
    let text = "  -h, --help  Print help\n      --max-frame-bytes <N>  a --x-y flag; not a-- or \
                ---; HARK_ADDR, RUST_LOG and NOT_HARK_X, HARK_";
    assert_eq!(
        flags(text).into_iter().collect::<Vec<_>>(),
        ["--help", "--max-frame-bytes", "--x-y"]
    );
    assert_eq!(
        variables(text).into_iter().collect::<Vec<_>>(),
        ["HARK_ADDR", "RUST_LOG"]
    );
    let options = serve_options(
        "Usage: x\n\nOptions:\n      --addr <ADDR>\n          Address to\n          listen on \
         [default: 1:2]\n  -h, --help\n          Print help\n\nEnvironment:\n  HARK_ADDR --addr\n",
    );
    assert_eq!(
        options,
        [
            (
                "--addr".to_string(),
                "Address to listen on".to_string(),
                Some("1:2".to_string())
            ),
            ("--help".to_string(), "Print help".to_string(), None),
        ]
    );
}
