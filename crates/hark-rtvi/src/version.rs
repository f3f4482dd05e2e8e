//! Protocol version handshake rules (pipecat `processor.py::_handle_client_ready`).
//!
//! The client's `client-ready.data.version` is parsed as `MAJOR.MINOR.PATCH` (three integers):
//! - same major as [`PROTOCOL_VERSION`] → [`VersionCheck::Compatible`];
//! - major 1 → [`VersionCheck::Legacy`]: `bot-ready.version` echoes the client's version and
//!   `bot-output` uses the v1 shape (`spoken: bool`);
//! - any other major, an unparsable version, or none → [`VersionCheck::Warn`]: the session
//!   proceeds, but the server sends an `error-response` with the warning text first.

use crate::{PROTOCOL_VERSION, messages};

/// Outcome of [`check_client_version`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionCheck {
    /// Same major version as ours.
    Compatible,
    /// A protocol 1.x client: answer with its version and v1 message shapes.
    Legacy {
        /// The client's version string, echoed in `bot-ready`.
        client_version: String,
    },
    /// Proceed, but send `message` in an `error-response` (id = the client-ready id).
    Warn {
        /// Pipecat's warning text, e.g. `Client version unknown. Compatibility issues may occur.`
        message: String,
    },
}

impl VersionCheck {
    /// Whether v1 message shapes apply (`bot-output` with `spoken`).
    pub fn is_legacy(&self) -> bool {
        matches!(self, VersionCheck::Legacy { .. })
    }

    /// The `version` to put in `bot-ready`: the client's for legacy clients, else ours.
    pub fn bot_ready_version(&self) -> &str {
        match self {
            VersionCheck::Legacy { client_version } => client_version,
            _ => PROTOCOL_VERSION,
        }
    }

    /// The warning to send as an `error-response`, if any.
    pub fn warning(&self) -> Option<&str> {
        match self {
            VersionCheck::Warn { message } => Some(message),
            _ => None,
        }
    }
}

/// Parses `MAJOR.MINOR.PATCH` as three integers (surrounding spaces allowed, as Python's `int`
/// does). Returns `None` for anything else (`1.2`, `2.1.0-beta`).
pub fn parse_version(v: &str) -> Option<(i64, i64, i64)> {
    let mut parts = v.split('.');
    let mut next = || parts.next().and_then(|p| p.trim().parse::<i64>().ok());
    let parsed = (next()?, next()?, next()?);
    if v.split('.').count() != 3 {
        return None;
    }
    Some(parsed)
}

/// Applies the handshake rules to the client's `version` (`None` when absent).
pub fn check_client_version(client_version: Option<&str>) -> VersionCheck {
    let Some(v) = client_version else {
        return VersionCheck::Warn {
            message: messages::version_unknown(),
        };
    };
    let Some((client_major, _, _)) = parse_version(v) else {
        return VersionCheck::Warn {
            message: messages::version_invalid_format(v),
        };
    };
    let server_major = parse_version(PROTOCOL_VERSION).map(|p| p.0);
    if Some(client_major) == server_major {
        VersionCheck::Compatible
    } else if client_major == 1 {
        VersionCheck::Legacy {
            client_version: v.to_string(),
        }
    } else {
        VersionCheck::Warn {
            message: messages::version_incompatible(v, PROTOCOL_VERSION),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_three_integers_only() {
        assert_eq!(parse_version("2.1.0"), Some((2, 1, 0)));
        assert_eq!(parse_version(" 2.1.0 "), Some((2, 1, 0)));
        assert_eq!(parse_version("1.2"), None);
        assert_eq!(parse_version("1.2.3.4"), None);
        assert_eq!(parse_version("2.1.0-beta"), None);
        assert_eq!(parse_version(""), None);
        assert_eq!(parse_version("a.b.c"), None);
    }
}
