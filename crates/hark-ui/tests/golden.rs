//! Byte-for-byte parity with pipecat-ai 1.14.0's `render_ui_state` / `render_ui_event`.
//!
//! Reads every case under `tests/golden/cases/` (repo root; made by `tests/golden/generate.sh`,
//! which runs pipecat's own functions) and checks:
//! - `expected`: pipecat's rendering of the plain dict = [`render_ui_state_value`] /
//!   [`render_ui_event`];
//! - `expected_wire` (ui_state cases): pipecat validates with pydantic, dumps with
//!   `exclude_none=True` and renders. Hark decodes with `hark_rtvi::A11ySnapshot` and renders
//!   with [`render_ui_state`]; `null` means pydantic refused the snapshot, so Hark must refuse it
//!   too; otherwise the output must equal it. A case with `snapshot_text` (an integer outside
//!   [-2^63, 2^64), which a `Value` cannot hold) is decoded from that text and checked on the
//!   wire path only.

use std::fs;
use std::path::{Path, PathBuf};

use hark_ui::{
    A11ySnapshot, render_ui_event, render_ui_state, render_ui_state_value, snapshot_from_json,
};
use serde_json::Value;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/cases")
}

/// Wire-path cases where hark-rtvi's decoder is known to differ from pydantic's lax mode, with
/// the reason. Each entry must still differ (the test fails when one starts to match, so the
/// list cannot go stale).
const KNOWN_WIRE_DIFFERENCES: &[(&str, &str)] = &[];

struct Outcome {
    checked_dict: usize,
    checked_wire: usize,
    failures: Vec<String>,
}

fn check_case(id: &str, dir: &Path, out: &mut Outcome) {
    let input: Value = match fs::read_to_string(dir.join(format!("{id}.json")))
        .map_err(|e| e.to_string())
        .and_then(|s| serde_json::from_str(&s).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            out.failures.push(format!("{id}: input unreadable: {e}"));
            return;
        }
    };
    let expected = input["expected"].as_str().unwrap_or_default().to_string();
    match input["kind"].as_str() {
        Some("ui_event") => {
            let name = input["event"].as_str().unwrap_or_default();
            let got = render_ui_event(name, input.get("payload"));
            if got != expected {
                out.failures.push(format!(
                    "{id}: ui_event\n  want {expected:?}\n  got  {got:?}"
                ));
            }
            out.checked_dict += 1;
        }
        Some("ui_state") => {
            let snapshot = &input["snapshot"];
            // An integer outside [-2^63, 2^64) is held exactly only in `snapshot_text`: a
            // `Value` cannot hold it, so such a case checks the wire path alone, from the text.
            let snapshot_text = input["snapshot_text"].as_str();
            if snapshot_text.is_none() {
                let got = render_ui_state_value(snapshot);
                if got != expected {
                    out.failures.push(format!(
                        "{id}: dict path\n  want {expected:?}\n  got  {got:?}"
                    ));
                }
                out.checked_dict += 1;
            }

            let invalid = input["expected_wire"].is_null();
            let model_expected = input["expected_wire"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let text = match snapshot_text {
                Some(t) => t.to_owned(),
                None => serde_json::to_string(snapshot).unwrap_or_default(),
            };
            let decoded = match snapshot_text {
                Some(t) => A11ySnapshot::from_json(t),
                None => A11ySnapshot::from_value(snapshot.clone(), ""),
            };
            // hark-ui's streaming decoder must give exactly hark-rtvi's result.
            if snapshot_from_json(&text) != A11ySnapshot::from_json(&text) {
                out.failures
                    .push(format!("{id}: snapshot_from_json differs from hark-rtvi"));
            }
            let problem = match (&decoded, invalid) {
                (Err(_), true) => None,
                (Ok(s), false) => {
                    let got = render_ui_state(s);
                    (got != model_expected)
                        .then(|| format!("want {model_expected:?}\n  got  {got:?}"))
                }
                (Ok(_), true) => {
                    Some("pydantic refuses this snapshot, hark-rtvi accepts it".into())
                }
                (Err(e), false) => Some(format!(
                    "pydantic accepts this snapshot, hark-rtvi refuses: {e}"
                )),
            };
            let known = KNOWN_WIRE_DIFFERENCES.iter().find(|(k, _)| *k == id);
            match (problem, known) {
                (Some(p), None) => out.failures.push(format!("{id}: wire path: {p}")),
                (None, Some((_, why))) => out.failures.push(format!(
                    "{id}: listed as a known difference ({why}) but now matches: remove it"
                )),
                _ => {}
            }
            out.checked_wire += 1;
        }
        other => out.failures.push(format!("{id}: unknown kind {other:?}")),
    }
}

#[test]
fn goldens_match_pipecat_byte_for_byte() {
    let dir = cases_dir();
    let mut ids: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}; run tests/golden/generate.sh", dir.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .map(String::from)
        })
        .collect();
    ids.sort();
    let mut out = Outcome {
        checked_dict: 0,
        checked_wire: 0,
        failures: Vec::new(),
    };
    for id in &ids {
        check_case(id, &dir, &mut out);
    }
    assert!(
        ids.len() >= 300,
        "expected at least 300 golden cases, found {}",
        ids.len()
    );
    assert!(
        out.failures.is_empty(),
        "{} of {} cases differ from pipecat:\n{}",
        out.failures.len(),
        ids.len(),
        out.failures.join("\n")
    );
    // Every case but those whose snapshot only `snapshot_text` holds exactly.
    assert!(
        out.checked_dict + 40 >= ids.len(),
        "only {} dict-path cases",
        out.checked_dict
    );
    assert!(
        out.checked_wire >= 300,
        "only {} wire-path cases",
        out.checked_wire
    );
}
