//! What the program running an agent file gives it: its catalogue of local tools, values for
//! `${NAME}` placeholders, and loopback addresses of its own services that webhooks may reach.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use hark_tools::ToolSpec;

/// The host program's side of an agent file (the `hark` binary passes the demo shop's).
///
/// - **Local tools**: Rust tools a file names in `[tools] local`; built once by the host, cloned
///   into each agent built from a file ([`ToolSpec`] clones are cheap).
/// - **Values**: `${NAME}` in a webhook `url` or `[llm] base_url` reads the value given here
///   first, then the environment variable `NAME`.
/// - **Allowed addresses**: a webhook whose URL's host is one of these exact `ip:port`s (an IP
///   literal) may reach it over plain http though it is loopback; its guard allows only that
///   address ([`hark_webhook::NetworkGuard::allow_address`]). Every other private address stays
///   refused, and nothing is allowed globally.
///
/// ```
/// use hark_agent::agent_file::Host;
/// let host = Host::new()
///     .with_value("ORDERS_URL", "http://127.0.0.1:4100")
///     .allow_address("127.0.0.1:4100".parse().unwrap());
/// assert_eq!(host.value("ORDERS_URL").as_deref(), Some("http://127.0.0.1:4100"));
/// assert!(host.local_tool_names().is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Host {
    local: BTreeMap<String, ToolSpec>,
    values: BTreeMap<String, String>,
    allowed: Vec<SocketAddr>,
    /// The `{{call.name}}` values its calls carry; `None`: `hark serve`'s.
    call_values: Option<Vec<String>>,
}

impl Host {
    /// A host with no local tools, no values and no allowed address.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a local tool, under its own name (a second tool of one name replaces the first).
    pub fn with_local_tool(mut self, tool: ToolSpec) -> Self {
        self.local.insert(tool.name().to_string(), tool);
        self
    }

    /// Adds local tools.
    pub fn with_local_tools(mut self, tools: impl IntoIterator<Item = ToolSpec>) -> Self {
        for tool in tools {
            self = self.with_local_tool(tool);
        }
        self
    }

    /// Sets the value of the `${name}` placeholder (it wins over the environment).
    pub fn with_value(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.values.insert(name.into(), value.into());
        self
    }

    /// Lets webhooks whose URL is exactly this `ip:port` reach it (see the type's docs).
    pub fn allow_address(mut self, addr: SocketAddr) -> Self {
        if !self.allowed.contains(&addr) {
            self.allowed.push(addr);
        }
        self
    }

    /// The names of the local tools, sorted.
    pub fn local_tool_names(&self) -> Vec<String> {
        self.local.keys().cloned().collect()
    }

    /// The local tool of this name.
    pub fn local_tool(&self, name: &str) -> Option<&ToolSpec> {
        self.local.get(name)
    }

    /// The value of `${name}`: the host's, else the environment variable's (unset or empty is
    /// `None`).
    pub fn value(&self, name: &str) -> Option<String> {
        if let Some(value) = self.values.get(name) {
            return Some(value.clone());
        }
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }

    /// The `{{call.name}}` values the program's calls carry (`"session_id"`, `"remote_number"`,
    /// …): the file's check warns of every other one it reads. Without it, those of `hark serve`
    /// ([`SERVE_CALL_VALUES`](super::SERVE_CALL_VALUES): an RTVI session carries its id only).
    pub fn with_call_values<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.call_values = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// The `{{call.name}}` values the program's calls carry.
    pub fn call_values(&self) -> Vec<String> {
        match &self.call_values {
            Some(names) => names.clone(),
            None => super::SERVE_CALL_VALUES
                .iter()
                .map(|n| n.to_string())
                .collect(),
        }
    }

    /// The allowed addresses.
    pub fn allowed_addresses(&self) -> &[SocketAddr] {
        &self.allowed
    }
}
