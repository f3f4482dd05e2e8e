//! Lines code speaks: `{{…}}` templates, and values spoken in the call's language and timezone.
//!
//! Announce lines with values (a line whose value is not set is refused), replies that speak a
//! result (`{{result.…}}` and State paths; values said by their JSON Schema format), locked
//! arguments (`{{call.…}}`, removed `{{@…}}` names, a whole object or list only as the only
//! text) and replies on the tool itself (reply lines are templates). The user guide shows them
//! in `docs/guide/announce-lines.md`, `docs/guide/replies-and-assign.md` and
//! `docs/guide/locked-values-and-transcript.md`.
//!
//! - [`Template`] parses a line once; [`Template::fill`] fills it for speech through a
//!   [`Resolve`] (the tool layer's view of the state, call and result) and a [`Speaker`];
//!   [`Template::fill_json`] fills a locked argument; [`Template::check_locked`] checks one at
//!   build time.
//! - [`Speaker`] says a [`SpokenValue`] by its [`SayAs`] (date, date-time, time, phone, enum
//!   words, plain), with ICU4X CLDR data and jiff's bundled tz database. Build it once per call.
//!
//! ```
//! use std::sync::Arc;
//! use hark_speak::{FixedClock, Placeholder, Resolve, SayAs, Speaker, SpokenValue, Template};
//! use serde_json::{json, Value};
//!
//! struct Result(Value);
//! impl Resolve for Result {
//!     fn resolve(&self, p: &Placeholder) -> Option<SpokenValue<'_>> {
//!         let value = self.0.get(p.path.first()?)?;
//!         let say_as = if p.path[0] == "arrives" { SayAs::Date } else { SayAs::Plain };
//!         Some(SpokenValue::new(value, say_as))
//!     }
//! }
//!
//! // 2026-10-15 at 20:00 in New York.
//! let now = "2026-10-16T00:00:00Z".parse().unwrap();
//! let speaker = Speaker::with_clock("en-US", Some("America/New_York"), Arc::new(FixedClock(now)))?;
//! let line = Template::parse("Order {{result.order_id}} arrives {{result.arrives}}.")?;
//! let result = Result(json!({"order_id": "A-17", "arrives": "2026-10-16"}));
//! assert_eq!(line.fill(&result, &speaker)?, "Order A-17 arrives tomorrow, October 16.");
//!
//! // Without a timezone there is no "tomorrow".
//! let speaker = Speaker::new("en-US", None)?;
//! assert_eq!(line.fill(&result, &speaker)?, "Order A-17 arrives Friday, October 16, 2026.");
//!
//! // A value that is not set refuses the line.
//! let unfilled = line.fill(&Result(json!({"order_id": "A-17"})), &speaker).unwrap_err();
//! assert_eq!(unfilled.placeholder.to_string(), "{{result.arrives}}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod locale;
pub mod messages;
mod speaker;
mod template;

pub use speaker::{Clock, FixedClock, SayAs, Speaker, SpeakerError, SystemClock};
pub use template::{
    LockedError, Placeholder, Resolve, Scope, SpokenValue, Template, TemplateError, Unfilled,
    ValueKind,
};
