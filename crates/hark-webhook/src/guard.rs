//! The network guard: which hosts a webhook may reach, checked before any byte is sent.
//!
//! Three places check, so no spelling of a URL or redirect gets past:
//! 1. [`NetworkGuard::check_url`] before the first request: scheme, port, and an IP-literal host
//!    (the `url` crate has already normalised decimal, octal, hex, short, percent-encoded and
//!    trailing-dot IPv4 spellings to an address; IPv6 zone ids do not parse at all).
//! 2. The same check on every redirect hop (reqwest's `redirect::Policy::custom`), plus a hop
//!    limit. IP-literal hosts never reach a resolver, which is why 1 and 2 exist.
//! 3. A resolver that resolves each name once and hands reqwest only the addresses that pass
//!    [`check_ip`]. reqwest connects to exactly those addresses, so there is
//!    no second lookup for DNS rebinding to switch.
//!
//! The resolver is injectable ([`Resolver`]) but its answers always go through the same filter:
//! a test resolver cannot make loopback public. Only the `test-support` feature (enabled by this
//! crate's own dev-dependency, never by a normal build) adds a per-name allow-list and plain http.

use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use futures::future::BoxFuture;
use url::{Host, Url};

use crate::addr::{NonPublic, check_ip};
use crate::messages;

/// The default hop limit: at most this many redirects are followed.
pub const DEFAULT_MAX_REDIRECTS: usize = 5;

/// Looks up the IP addresses of a host name. The guard filters every answer.
pub trait Resolver: Send + Sync + fmt::Debug + 'static {
    /// The addresses of `host` (a name, never an IP literal). An error or an empty list means
    /// the name did not resolve.
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, io::Result<Vec<IpAddr>>>;
}

/// The operating system's resolver (`getaddrinfo` through `tokio::net::lookup_host`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host, 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        })
    }
}

/// Why the guard refused a URL, a redirect or a name. Its text names the host and the range,
/// never a credential or a body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardRefusal {
    /// The host, an IP literal or a name, is (or resolves only to) a refused address.
    #[error("{0}")]
    Address(String),
    /// The URL's scheme is not allowed (https, or http with `allow_private_network`).
    #[error("{}", messages::redirect_scheme(.0))]
    Scheme(String),
    /// The host name did not resolve (no address, or the lookup failed): nothing was refused,
    /// the service could not be found.
    #[error("{}", messages::name_unresolved(.0))]
    Unresolved(String),
    /// The URL has no host, user info, or port 0.
    #[error("{0}")]
    Malformed(String),
    /// More redirects than the hop limit.
    #[error("more than {0} redirects")]
    TooManyRedirects(usize),
    /// A redirect to another origin for a request that carries credentials.
    #[error("{}", messages::redirect_cross_origin(.0))]
    CrossOrigin(String),
}

/// Which hosts a webhook may reach. Cheap to clone.
///
/// `NetworkGuard::new()` is the production guard: https only, public addresses only, the system
/// resolver, [`DEFAULT_MAX_REDIRECTS`]. `NetworkGuard::allow_private_network()` accepts private
/// addresses and plain http ("Private addresses" 3) but keeps the hop limit.
#[derive(Clone)]
pub struct NetworkGuard {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    allow_private: bool,
    resolver: Arc<dyn Resolver>,
    max_redirects: usize,
    /// Exact `ip:port`s of IP-literal URLs accepted though private (see `allow_address`).
    exact: Vec<SocketAddr>,
    #[cfg(feature = "test-support")]
    public_names: Vec<(String, IpAddr)>,
    #[cfg(feature = "test-support")]
    plain_http: bool,
}

impl fmt::Debug for NetworkGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NetworkGuard")
            .field("allow_private", &self.inner.allow_private)
            .field("max_redirects", &self.inner.max_redirects)
            .field("resolver", &self.inner.resolver)
            .finish()
    }
}

impl Default for NetworkGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl NetworkGuard {
    /// The production guard: public addresses and https only.
    pub fn new() -> Self {
        Self::with(false)
    }

    /// A guard that accepts private, loopback and link-local addresses and plain http
    /// ("Private addresses" 3). Use it only for your own internal service or localhost.
    pub fn allow_private_network() -> Self {
        Self::with(true)
    }

    fn with(allow_private: bool) -> Self {
        Self {
            inner: Arc::new(Inner {
                allow_private,
                resolver: Arc::new(SystemResolver),
                max_redirects: DEFAULT_MAX_REDIRECTS,
                exact: Vec::new(),
                #[cfg(feature = "test-support")]
                public_names: Vec::new(),
                #[cfg(feature = "test-support")]
                plain_http: false,
            }),
        }
    }

    fn edit(self, f: impl FnOnce(&mut Inner)) -> Self {
        let mut inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            allow_private: shared.allow_private,
            resolver: shared.resolver.clone(),
            max_redirects: shared.max_redirects,
            exact: shared.exact.clone(),
            #[cfg(feature = "test-support")]
            public_names: shared.public_names.clone(),
            #[cfg(feature = "test-support")]
            plain_http: shared.plain_http,
        });
        f(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }

    /// Uses `resolver` for names. Its answers still go through the address filter.
    pub fn with_resolver(self, resolver: Arc<dyn Resolver>) -> Self {
        self.edit(|inner| inner.resolver = resolver)
    }

    /// Sets the hop limit (how many redirects are followed; 0 follows none).
    pub fn with_max_redirects(self, max: usize) -> Self {
        self.edit(|inner| inner.max_redirects = max)
    }

    /// Accepts exactly `addr` (its IP and port) as the host of an IP-literal URL, over http or
    /// https, though it is loopback or private: for a service the host program itself starts on
    /// loopback (the demo's order service). Every other private address, port and name is
    /// still refused, redirect hops included.
    ///
    /// ```
    /// use hark_webhook::NetworkGuard;
    /// use url::Url;
    /// let guard = NetworkGuard::new().allow_address("127.0.0.1:4100".parse().unwrap());
    /// assert!(guard.check_url(&Url::parse("http://127.0.0.1:4100/orders").unwrap()).is_ok());
    /// assert!(guard.check_url(&Url::parse("http://127.0.0.1:4101/orders").unwrap()).is_err());
    /// assert!(guard.check_url(&Url::parse("http://localhost:4100/orders").unwrap()).is_err());
    /// ```
    pub fn allow_address(self, addr: SocketAddr) -> Self {
        self.edit(|inner| inner.exact.push(addr))
    }

    /// True when `url`'s host is an IP literal whose `ip:port` was allowed with
    /// [`allow_address`](Self::allow_address).
    pub fn allows_address(&self, url: &Url) -> bool {
        let ip = match url.host() {
            Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
            _ => return false,
        };
        let Some(port) = url.port_or_known_default() else {
            return false;
        };
        self.inner.exact.contains(&SocketAddr::new(ip, port))
    }

    /// Test seam: answers of `name` equal to `ip` pass the filter. IP-literal URLs and every
    /// other name are still filtered. Only with the `test-support` feature.
    #[cfg(feature = "test-support")]
    pub fn treat_as_public(self, name: &str, ip: IpAddr) -> Self {
        let name = normalise_name(name);
        self.edit(|inner| inner.public_names.push((name, ip)))
    }

    /// Test seam: accepts plain http (loopback test servers have no TLS). Only with the
    /// `test-support` feature.
    #[cfg(feature = "test-support")]
    pub fn allow_plain_http(self) -> Self {
        self.edit(|inner| inner.plain_http = true)
    }

    /// True when this guard accepts private addresses.
    pub fn allows_private(&self) -> bool {
        self.inner.allow_private
    }

    /// True when this guard accepts plain http.
    pub fn allows_http(&self) -> bool {
        #[cfg(feature = "test-support")]
        if self.inner.plain_http {
            return true;
        }
        self.inner.allow_private
    }

    /// The hop limit.
    pub fn max_redirects(&self) -> usize {
        self.inner.max_redirects
    }

    /// Checks a URL before a request or a redirect hop: scheme, host present, no user info,
    /// port not 0, and an IP-literal host against the address filter. Names are checked when
    /// they resolve.
    pub fn check_url(&self, url: &Url) -> Result<(), GuardRefusal> {
        let exact = self.allows_address(url);
        match url.scheme() {
            "http" | "https" if exact => {}
            "https" => {}
            "http" if self.allows_http() => {}
            other => return Err(GuardRefusal::Scheme(other.to_string())),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(GuardRefusal::Malformed("the URL carries user info".into()));
        }
        if url.port() == Some(0) {
            return Err(GuardRefusal::Malformed("the URL port is 0".into()));
        }
        if exact {
            return Ok(());
        }
        let ip = match url.host() {
            None => return Err(GuardRefusal::Malformed("the URL has no host".into())),
            Some(Host::Domain(_)) => return Ok(()),
            Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
        };
        self.check_literal(ip)
    }

    /// Checks an IP-literal host.
    pub fn check_literal(&self, ip: IpAddr) -> Result<(), GuardRefusal> {
        if self.inner.allow_private {
            return Ok(());
        }
        check_ip(ip).map_err(|NonPublic(why)| {
            GuardRefusal::Address(messages::host_is(&ip.to_string(), why))
        })
    }

    /// Resolves `host` once and keeps only the addresses that pass the filter. Fails when none
    /// is left, naming the host and the first refused range.
    pub async fn resolve(&self, host: &str) -> Result<Vec<IpAddr>, GuardRefusal> {
        let name = normalise_name(host);
        // A name that is itself an IP literal (hyper hands bracket-less literals to the
        // resolver in some versions): judge it as a literal.
        if let Ok(ip) = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            self.check_literal(ip)?;
            return Ok(vec![ip]);
        }
        let found = self
            .inner
            .resolver
            .lookup(&name)
            .await
            .map_err(|_| GuardRefusal::Unresolved(name.to_string()))?;
        if found.is_empty() {
            return Err(GuardRefusal::Unresolved(name.to_string()));
        }
        if self.inner.allow_private {
            return Ok(found);
        }
        let mut kept = Vec::with_capacity(found.len());
        let mut first_refusal = None;
        for ip in found {
            match self.filter(&name, ip) {
                Ok(()) => kept.push(ip),
                Err(NonPublic(why)) => {
                    first_refusal.get_or_insert(why);
                }
            }
        }
        if kept.is_empty() {
            let why = first_refusal.unwrap_or("non-public");
            return Err(GuardRefusal::Address(messages::name_resolves_private(
                &name, why,
            )));
        }
        Ok(kept)
    }

    fn filter(&self, name: &str, ip: IpAddr) -> Result<(), NonPublic> {
        #[cfg(feature = "test-support")]
        if self
            .inner
            .public_names
            .iter()
            .any(|(n, allowed)| n == name && *allowed == ip)
        {
            return Ok(());
        }
        let _ = name;
        check_ip(ip)
    }

    /// The reqwest redirect policy of this guard: each hop is checked by
    /// [`check_url`](Self::check_url), and more than [`max_redirects`](Self::max_redirects)
    /// hops fail. With `same_origin_only`, a hop to another origin than the first URL's fails.
    pub fn redirect_policy(&self, same_origin_only: bool) -> reqwest::redirect::Policy {
        let guard = self.clone();
        reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > guard.max_redirects() {
                let max = guard.max_redirects();
                return attempt.error(GuardRefusal::TooManyRedirects(max));
            }
            if same_origin_only
                && let Some(first) = attempt.previous().first()
                && first.origin() != attempt.url().origin()
            {
                let host = attempt.url().host_str().unwrap_or("").to_string();
                return attempt.error(GuardRefusal::CrossOrigin(host));
            }
            match guard.check_url(attempt.url()) {
                Ok(()) => attempt.follow(),
                Err(refusal) => attempt.error(refusal),
            }
        })
    }
}

/// Lower case, without one trailing dot.
fn normalise_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    lower.strip_suffix('.').map(str::to_string).unwrap_or(lower)
}

/// True for a host name that is loopback by definition (RFC 6761 section 6.3): `localhost`,
/// any `*.localhost`, in any case, with or without one trailing dot. Such a name is refused at
/// build time like `127.0.0.1`, before any resolver is asked.
pub(crate) fn is_loopback_name(name: &str) -> bool {
    let name = normalise_name(name);
    name == "localhost" || name.ends_with(".localhost")
}

/// The guard as reqwest's resolver.
#[derive(Debug, Clone)]
pub(crate) struct GuardResolve(pub(crate) NetworkGuard);

impl reqwest::dns::Resolve for GuardResolve {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let guard = self.0.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            match guard.resolve(&host).await {
                Ok(ips) => {
                    let addrs: reqwest::dns::Addrs =
                        Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
                    Ok(addrs)
                }
                Err(refusal) => Err(Box::new(refusal) as Box<dyn std::error::Error + Send + Sync>),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Fixed(Vec<IpAddr>);
    impl Resolver for Fixed {
        fn lookup<'a>(&'a self, _host: &'a str) -> BoxFuture<'a, io::Result<Vec<IpAddr>>> {
            let ips = self.0.clone();
            Box::pin(async move { Ok(ips) })
        }
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    #[test]
    fn resolver_answers_are_filtered() {
        let guard = NetworkGuard::new().with_resolver(Arc::new(Fixed(vec![
            "127.0.0.1".parse().unwrap(),
            "93.184.216.34".parse().unwrap(),
        ])));
        let kept = rt().block_on(guard.resolve("example.com")).unwrap();
        assert_eq!(kept, vec!["93.184.216.34".parse::<IpAddr>().unwrap()]);
    }

    #[test]
    fn a_name_with_only_private_answers_is_refused_naming_it() {
        let guard = NetworkGuard::new()
            .with_resolver(Arc::new(Fixed(vec!["169.254.169.254".parse().unwrap()])));
        let err = rt()
            .block_on(guard.resolve("Metadata.Internal."))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "metadata.internal resolves to the cloud metadata address addresses only"
        );
    }

    #[test]
    fn allow_private_keeps_every_answer() {
        let guard = NetworkGuard::allow_private_network()
            .with_resolver(Arc::new(Fixed(vec!["127.0.0.1".parse().unwrap()])));
        assert_eq!(rt().block_on(guard.resolve("localhost")).unwrap().len(), 1);
        assert!(
            guard
                .check_url(&Url::parse("http://127.0.0.1/").unwrap())
                .is_ok()
        );
    }

    #[test]
    fn loopback_names_are_known_by_definition() {
        for name in [
            "localhost",
            "LOCALHOST",
            "localhost.",
            "sub.localhost",
            "a.b.Localhost.",
        ] {
            assert!(is_loopback_name(name), "{name}");
        }
        for name in [
            "localhost.example.com",
            "mylocalhost",
            "example.com",
            "localhost..",
            "",
        ] {
            assert!(!is_loopback_name(name), "{name}");
        }
    }

    #[test]
    fn check_url_refuses_http_and_literals() {
        let guard = NetworkGuard::new();
        let check = |s: &str| guard.check_url(&Url::parse(s).unwrap());
        assert_eq!(
            check("http://example.com/"),
            Err(GuardRefusal::Scheme("http".into()))
        );
        assert!(check("https://example.com/").is_ok());
        assert_eq!(
            check("https://0x7f.1/"),
            Err(GuardRefusal::Address("127.0.0.1 is loopback".into()))
        );
        assert!(check("https://[::ffff:127.0.0.1]/").is_err());
        assert!(check("https://u:p@example.com/").is_err());
    }

    #[cfg(feature = "test-support")]
    #[test]
    fn the_test_allow_list_is_per_name() {
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        let guard = NetworkGuard::new()
            .with_resolver(Arc::new(Fixed(vec![loopback])))
            .treat_as_public("public.test", loopback);
        assert_eq!(
            rt().block_on(guard.resolve("public.test")).unwrap(),
            vec![loopback]
        );
        assert!(rt().block_on(guard.resolve("localhost")).is_err());
        assert!(
            guard
                .check_url(&Url::parse("https://127.0.0.1/").unwrap())
                .is_err()
        );
    }
}
