//! Schema normalisation and every provider dialect on arbitrary JSON.
//!
//! Checks, besides "never panics": normalising is idempotent, a normalised schema never keeps
//! `$ref`, `$defs`, `format` or `pattern` as keywords, and `for_dialect` gives the same result
//! from the raw schema and from the normalised one.
//!
//! Run: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run normalise seeds/normalise -- -dict=schema.dict`
#![no_main]

use hark_schema::{Dialect, drop_strict_nulls, for_dialect, normalise};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(normalised) = normalise(&schema) else {
        // Refusals say something, and the sentence names the keyword (an empty key is shown
        // as "").
        let errors = normalise(&schema).unwrap_err();
        assert!(!errors.0.is_empty());
        for e in &errors.0 {
            assert!(!e.message.is_empty());
            let shown = if e.keyword.is_empty() {
                "\"\""
            } else {
                e.keyword.as_str()
            };
            assert!(
                e.message.contains(shown) || matches!(e.keyword.as_str(), "depth" | "$ref"),
                "{e}"
            );
        }
        return;
    };
    assert_eq!(
        normalise(&normalised).as_ref(),
        Ok(&normalised),
        "normalise is idempotent"
    );
    assert!(normalised.get("$defs").is_none());
    for d in Dialect::ALL {
        let from_raw = for_dialect(&schema, d);
        let from_normalised = for_dialect(&normalised, d);
        assert_eq!(from_raw, from_normalised, "{d:?}");
        if let Err(errors) = from_raw {
            assert!(!errors.0.is_empty() && errors.0.iter().all(|e| !e.message.is_empty()));
        }
    }
    // Arguments shaped like the schema itself: drop_strict_nulls must not panic on anything.
    let mut args = schema.clone();
    drop_strict_nulls(&normalised, &mut args);
});
