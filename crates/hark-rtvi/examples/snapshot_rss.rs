//! Peak memory of decoding one large `ui-snapshot` message, for the figures in
//! `hark_rtvi::snapshot`'s docs. Builds a ~0.9 MB snapshot of 15,000 nodes (150 sections of 99
//! buttons under the root, no `state`), parses it `ROUNDS` times with `parse_client_message_with` (node limit
//! lifted so the tree is decoded, not refused), and prints the node count.
//!
//! Measure: `cargo build --release -p hark-rtvi --example snapshot_rss` then
//! `/usr/bin/time -v target/release/examples/snapshot_rss` ("Maximum resident set size"), and
//! the same with the argument `baseline` (builds the text only, no decode) for the floor.

use hark_rtvi::{ClientMessage, SnapshotLimits, parse_client_message_with};

const SECTIONS: usize = 150;
const PER_SECTION: usize = 99;
const ROUNDS: usize = 5;

fn message() -> String {
    let mut n = 1;
    let mut sections = Vec::with_capacity(SECTIONS);
    for s in 0..SECTIONS {
        let mut buttons = Vec::with_capacity(PER_SECTION);
        for b in 0..PER_SECTION {
            n += 1;
            buttons.push(format!(
                r#"{{"ref":"e{n}","role":"button","name":"Add item {s}-{b} to cart"}}"#
            ));
        }
        n += 1;
        sections.push(format!(
            r#"{{"ref":"e{n}","role":"region","name":"Section {s}","children":[{}]}}"#,
            buttons.join(",")
        ));
    }
    format!(
        r#"{{"label":"rtvi-ai","type":"ui-snapshot","id":"a1b2c3d4","data":{{"tree":{{"root":{{"ref":"e1","role":"generic","children":[{}]}},"captured_at":1767225600000}}}}}}"#,
        sections.join(",")
    )
}

fn main() {
    let text = message();
    eprintln!("message: {} bytes", text.len());
    if std::env::args().nth(1).as_deref() == Some("baseline") {
        return;
    }
    let limits = SnapshotLimits {
        max_nodes: usize::MAX,
        ..SnapshotLimits::default()
    };
    for _ in 0..ROUNDS {
        let inbound = parse_client_message_with(&text, &limits).expect("the message decodes");
        let ClientMessage::UiSnapshot(snap) = inbound.message else {
            unreachable!("a ui-snapshot")
        };
        eprintln!("nodes: {}", snap.root.count());
    }
}
