//! Every Rust example of the user guide (`docs/guide/`) and of the root README, copied into a new
//! crate outside this workspace as a user copies it, then built and run: each page's
//! example can be copied into a new crate and works as written.
//!
//! The doctests of `src/guide_doctests.rs` already compile and run each example, but inside
//! hark-server, with hark-server's dependencies in scope. This test takes the page at its word
//! instead:
//!
//! - A page with Rust examples has one ```` ```toml,cargo ```` block before its first example:
//!   the `[dependencies]` table a user pastes into their `Cargo.toml`. Its path dependencies
//!   point at `../hark/crates/NAME` (this repository checked out as `hark` beside the user's
//!   crate); the test points them at this checkout.
//! - Each ```` ```rust ```` block is a whole program (`fn main`, no lines hidden with `# `): it
//!   becomes `src/bin/<page>-l<line>.rs` of a crate made for the page, with exactly that table.
//!   Before anything is built, every crate an example names (`serde_json::…`, `#[tokio::main]`)
//!   must be in its page's table, and `#[tokio::main]` without a flavor needs tokio's
//!   `rt-multi-thread` feature there.
//! - All the pages' crates are built in one new workspace (with this repository's `Cargo.lock`,
//!   so versions are the ones tested here) in their own target directory under
//!   `CARGO_TARGET_TMPDIR`, then every program runs and must exit with 0. ```` ```rust,no_run ````
//!   is built but not run; ```` ```rust,compile_fail ```` is left to the doctests.
//!
//! A failure names the page and the line of the page it comes from (compiler errors are
//! rewritten from the generated file's lines to the page's).
//!
//! Features are unified across the pages' crates as Cargo unifies them in one workspace, so a
//! feature a page leaves out can be hidden by another page; the crates themselves cannot.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/guide_pages.rs"]
mod guide_pages;
use guide_pages::{Block, blocks, guide_dir, pages};

/// How long one example may run before it is counted as hung.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// Where the guide's path dependencies point: this repository, as a sibling `hark` checkout.
const PATH_PREFIX: &str = "../hark/";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

/// One page that has Rust examples, and what its new crate is made of.
#[derive(Debug)]
struct PageCrate {
    /// The page as the reader finds it (`docs/guide/first-tool.md`, `README.md`).
    page: String,
    /// The package name of its crate (`guide-first-tool`).
    package: String,
    /// The `[dependencies]` table, path dependencies pointed at this checkout.
    dependencies: String,
    /// The examples: (bin name, 1-based page line of the fence, source, run it).
    examples: Vec<Example>,
}

#[derive(Debug)]
struct Example {
    bin: String,
    line: usize,
    source: String,
    run: bool,
}

/// The crate names of this repository's `Cargo.lock`, with `-` as `_` (how code names them).
fn locked_crate_names() -> BTreeSet<String> {
    let lock = std::fs::read_to_string(repo_root().join("Cargo.lock")).expect("Cargo.lock");
    lock.lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .map(|n| n.replace('-', "_"))
        .collect()
}

/// The crates `source` names by path (`serde_json::json!`, `use hark_tools::{…}`), out of `known`.
///
/// A `use` item counts only its first segment (`use axum::{http::StatusCode}` names `axum`).
fn crates_named(source: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest_of_code = String::new();
    let mut rest = source;
    // `use` items: the first segment only; the rest of the code goes on to the scan below.
    while let Some(at) = find_use(rest) {
        rest_of_code.push_str(&rest[..at]);
        let item = &rest[at + "use ".len()..];
        let end = item.find(';').map_or(item.len(), |e| e + 1);
        let first: String = item
            .trim_start()
            .trim_start_matches("::")
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if known.contains(&first) {
            out.insert(first);
        }
        rest = &item[end..];
    }
    rest_of_code.push_str(rest);
    let code = rest_of_code.as_str();
    let bytes = code.as_bytes();
    let mut i = 0;
    while let Some(found) = code[i..].find("::") {
        let end = i + found;
        let mut start = end;
        while start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            start -= 1;
        }
        let preceded_by_path = start >= 1 && bytes[start - 1] == b':';
        let ident = &code[start..end];
        if !preceded_by_path && known.contains(ident) {
            out.insert(ident.to_string());
        }
        i = end + 2;
    }
    // `mod x` of the example's own shadows a crate of that name.
    for line in source.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("mod ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.remove(&name);
        }
    }
    out.retain(|name| !["std", "core", "alloc", "crate", "self", "super"].contains(&name.as_str()));
    out
}

/// Where the next `use` item of `text` starts (a line's first word, after `pub` if any).
fn find_use(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let item = trimmed.strip_prefix("pub ").unwrap_or(trimmed);
        if item.starts_with("use ") {
            return Some(offset + indent + (trimmed.len() - item.len()));
        }
        offset += line.len();
    }
    None
}

/// The dependency keys of a `[dependencies]` table (`serde_json`, `hark_tools`), `-` as `_`,
/// with the text of each entry.
fn dependency_entries(table: &str) -> BTreeMap<String, String> {
    table
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('['))
        .filter_map(|l| {
            let (key, value) = l.split_once('=')?;
            Some((key.trim().replace('-', "_"), value.trim().to_string()))
        })
        .collect()
}

/// Checks a page's blocks and makes its crate; problems go to `failures` with the page's lines.
fn page_crate(page: &str, slug: &str, text: &str, failures: &mut Vec<String>) -> Option<PageCrate> {
    let blocks = blocks(text);
    let rust: Vec<&Block> = blocks.iter().filter(|b| b.lang() == "rust").collect();
    if rust.is_empty() {
        return None;
    }
    let cargo: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.lang() == "toml" && b.has("cargo"))
        .collect();
    let Some(table) = cargo.first() else {
        failures.push(format!(
            "{page}:{}: the page has Rust examples but no ```toml,cargo block with the \
             [dependencies] a user puts in Cargo.toml to run them",
            rust[0].line
        ));
        return None;
    };
    if cargo.len() > 1 {
        failures.push(format!(
            "{page}:{}: a second ```toml,cargo block; one table serves every example of a page",
            cargo[1].line
        ));
    }
    if table.line > rust[0].line {
        failures.push(format!(
            "{page}:{}: the ```toml,cargo block comes after the first Rust example (line {}); \
             a reader needs the dependencies first",
            table.line, rust[0].line
        ));
    }
    let first = table
        .body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    if first != Some("[dependencies]") {
        failures.push(format!(
            "{page}:{}: a ```toml,cargo block is a [dependencies] table and starts with \
             `[dependencies]`",
            table.line
        ));
        return None;
    }
    let root = repo_root();
    let mut dependencies = String::new();
    for (offset, line) in table.body.lines().enumerate() {
        if let Some(at) = line.find("path = \"") {
            let value = &line[at + "path = \"".len()..];
            if !value.starts_with(PATH_PREFIX) {
                failures.push(format!(
                    "{page}:{}: a path dependency of the guide points at {PATH_PREFIX}crates/NAME \
                     (this repository checked out as `hark` beside the reader's crate)",
                    table.line + 1 + offset
                ));
            }
        }
        dependencies.push_str(&line.replace(
            &format!("\"{PATH_PREFIX}"),
            &format!("\"{}/", root.display()),
        ));
        dependencies.push('\n');
    }
    let entries = dependency_entries(&table.body);
    let known = locked_crate_names();
    let mut examples = Vec::new();
    for block in rust {
        if block.has("compile_fail") || block.has("ignore") {
            continue;
        }
        let hidden = block
            .body
            .lines()
            .position(|l| l == "#" || l.starts_with("# "));
        if let Some(offset) = hidden {
            failures.push(format!(
                "{page}:{}: a line hidden from the reader with `# `; a copied example must be the \
                 whole program",
                block.line + 1 + offset
            ));
        }
        if !block.body.contains("fn main") {
            failures.push(format!(
                "{page}:{}: the example has no `fn main`; each example is a whole program a \
                 reader copies into src/main.rs",
                block.line
            ));
        }
        for name in crates_named(&block.body, &known) {
            if !entries.contains_key(&name) {
                failures.push(format!(
                    "{page}:{}: the example uses the crate `{name}`, which the page's \
                     ```toml,cargo block (line {}) does not name",
                    block.line, table.line
                ));
            }
        }
        let plain_main = block.body.contains("#[tokio::main]\n");
        let multi_thread = entries
            .get("tokio")
            .is_some_and(|v| v.contains("rt-multi-thread"));
        if plain_main && !multi_thread {
            failures.push(format!(
                "{page}:{}: `#[tokio::main]` without `flavor = \"current_thread\"` needs tokio's \
                 `rt-multi-thread` feature in the page's ```toml,cargo block (line {})",
                block.line, table.line
            ));
        }
        examples.push(Example {
            bin: format!("{slug}-l{}", block.line),
            line: block.line,
            source: block.body.clone(),
            run: !block.has("no_run"),
        });
    }
    Some(PageCrate {
        page: page.to_string(),
        package: format!("guide-{slug}"),
        dependencies,
        examples,
    })
}

/// Every page with Rust examples: the guide's pages, then the root README.
fn all_page_crates(failures: &mut Vec<String>) -> Vec<PageCrate> {
    let mut out = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(guide_dir().join(&page)).unwrap();
        let slug = page
            .trim_end_matches(".md")
            .replace('/', "-")
            .to_lowercase();
        let shown = format!("docs/guide/{page}");
        out.extend(page_crate(&shown, &slug, &text, failures));
    }
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    out.extend(page_crate("README.md", "readme", &readme, failures));
    out
}

/// Writes the new workspace: one crate per page, this repository's lock file.
fn write_workspace(dir: &Path, crates: &[PageCrate]) {
    std::fs::create_dir_all(dir).unwrap();
    let members: Vec<String> = crates.iter().map(|c| format!("{:?}", c.package)).collect();
    let manifest = format!(
        "# Made by hark-server's tests/guide_new_crates.rs: the user guide's examples as new crates.\n\
         [workspace]\nresolver = \"3\"\nmembers = [{}]\n\n\
         [profile.dev]\ndebug = \"line-tables-only\"\n\n\
         [profile.dev.package.\"*\"]\ndebug = false\n",
        members.join(", ")
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(repo_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    for krate in crates {
        let root = dir.join(&krate.package);
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src/bin")).unwrap();
        let manifest = format!(
            "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\
             # From {}\n\n{}",
            krate.package, krate.page, krate.dependencies
        );
        std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
        for example in &krate.examples {
            let file = root.join(format!("src/bin/{}.rs", example.bin));
            std::fs::write(file, &example.source).unwrap();
        }
    }
}

/// Rewrites `guide-x/src/bin/x-l20.rs:7:5` in compiler output to `docs/guide/x.md:27:5`.
fn to_page_lines(output: &str, crates: &[PageCrate]) -> String {
    let workspace = format!("{}/", workspace_dir().display());
    let mut text = output.replace(&workspace, "");
    for krate in crates {
        for example in &krate.examples {
            let file = format!("{}/src/bin/{}.rs:", krate.package, example.bin);
            let short = format!("src/bin/{}.rs:", example.bin);
            for needle in [file, short] {
                let mut out = String::new();
                let mut rest = text.as_str();
                while let Some(at) = rest.find(&needle) {
                    out.push_str(&rest[..at]);
                    let after = &rest[at + needle.len()..];
                    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                    match digits.parse::<usize>() {
                        Ok(line) => {
                            out.push_str(&format!("{}:{}", krate.page, example.line + line));
                            rest = &after[digits.len()..];
                        }
                        Err(_) => {
                            out.push_str(&needle);
                            rest = after;
                        }
                    }
                }
                out.push_str(rest);
                text = out;
            }
        }
    }
    text
}

/// The new workspace the pages' crates are written to.
fn workspace_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("guide-crates")
}

/// Runs `program` in a fresh directory; its exit status and output, or `None` when it hung.
fn run(program: &Path, dir: &Path) -> Option<(bool, String)> {
    std::fs::create_dir_all(dir).unwrap();
    let mut child = Command::new(program)
        .current_dir(dir)
        // A failed assertion is enough; the page's line says where.
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            return Some((out.status.success(), text));
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[test]
fn every_example_of_the_guide_builds_and_runs_as_a_new_crate_with_the_dependencies_its_page_names()
{
    let mut failures = Vec::new();
    let crates = all_page_crates(&mut failures);
    assert!(
        failures.is_empty(),
        "{} problem(s) with the guide's examples as new crates:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    let examples: usize = crates.iter().map(|c| c.examples.len()).sum();
    // The guide has 50 Rust examples; far fewer means the extraction is broken, not the guide.
    assert!(examples >= 45, "only {examples} examples were found");

    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let workspace = workspace_dir();
    let target = tmp.join("guide-crates-target");
    write_workspace(&workspace, &crates);

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = Command::new(&cargo)
        .args(["build", "--workspace", "--bins", "--quiet"])
        .current_dir(&workspace)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("run cargo build");
    if !build.status.success() {
        let stderr = String::from_utf8_lossy(&build.stderr);
        panic!(
            "the guide's examples do not build as new crates (workspace {}):\n{}",
            workspace.display(),
            tail(&to_page_lines(&stderr, &crates), 150)
        );
    }

    let runs = tmp.join("guide-crates-runs");
    let mut ran = 0;
    for krate in &crates {
        for example in krate.examples.iter().filter(|e| e.run) {
            let program = target.join("debug").join(&example.bin);
            ran += 1;
            match run(&program, &runs.join(&example.bin)) {
                Some((true, _)) => {}
                Some((false, out)) => failures.push(format!(
                    "{}:{}: the example, built as a new crate, failed:\n{}",
                    krate.page,
                    example.line,
                    tail(&to_page_lines(&out, &crates), 40)
                )),
                None => failures.push(format!(
                    "{}:{}: the example, built as a new crate, still ran after {} s",
                    krate.page,
                    example.line,
                    RUN_LIMIT.as_secs()
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} examples failed as new crates:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_checks_name_a_missing_crate_a_missing_table_and_a_hidden_line() {
    let page = "Intro.\n\n```toml,cargo\n[dependencies]\n\
                hark-tools = { path = \"../hark/crates/hark-tools\" }\n\
                tokio = { version = \"1\", features = [\"macros\", \"rt\"] }\n```\n\n\
                ```rust\nuse hark_tools::ToolRegistry;\n# use std::fmt;\n\
                #[tokio::main]\nasync fn main() { let _ = serde_json::json!({}); }\n```\n";
    let mut failures = Vec::new();
    let made = page_crate("x.md", "x", page, &mut failures).expect("a crate");
    assert_eq!(made.package, "guide-x");
    assert_eq!(made.examples.len(), 1);
    assert_eq!(made.examples[0].bin, "x-l9");
    let root = repo_root();
    assert!(
        made.dependencies
            .contains(&format!("path = \"{}/crates/hark-tools\"", root.display())),
        "{}",
        made.dependencies
    );
    assert_eq!(failures.len(), 3, "{failures:#?}");
    assert!(
        failures[0].starts_with("x.md:11: a line hidden"),
        "{failures:?}"
    );
    assert!(
        failures[1].starts_with("x.md:9: the example uses the crate `serde_json`"),
        "{failures:?}"
    );
    assert!(
        failures[2].starts_with("x.md:9: `#[tokio::main]` without"),
        "{failures:?}"
    );

    let mut failures = Vec::new();
    assert!(page_crate("y.md", "y", "```rust\nfn main() {}\n```\n", &mut failures).is_none());
    assert_eq!(failures.len(), 1);
    assert!(failures[0].starts_with("y.md:1: the page has Rust examples but no"));

    // Compiler lines are mapped back onto the page.
    let crates = [made];
    assert_eq!(
        to_page_lines("error[E0425]\n --> guide-x/src/bin/x-l9.rs:3:5\n", &crates),
        "error[E0425]\n --> x.md:12:5\n"
    );
}

#[test]
fn crates_named_finds_paths_and_skips_std_locals_and_nested_paths() {
    let known: BTreeSet<String> = ["serde", "serde_json", "tokio", "http", "hark_tools", "axum"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let source = "use hark_tools::{tool, ToolError};\nuse axum::{http::StatusCode, Json};\n\
                  #[derive(serde::Serialize)]\nstruct A;\n\
                  fn main() { let _ = std::time::Duration::ZERO; \
                  let _ = axum::http::StatusCode::OK; let _ = serde_json::json!(1); }\n";
    let found: Vec<String> = crates_named(source, &known).into_iter().collect();
    assert_eq!(found, ["axum", "hark_tools", "serde", "serde_json"]);
}
