//! What the WebSocket providers (Deepgram's live STT, Cartesia's TTS) share: the TLS setup of
//! their `wss://` connections.

use std::sync::{Arc, OnceLock};

/// rustls as reqwest sets it up in this workspace: the aws-lc-rs provider and the platform's
/// certificate verifier (the system's roots), so speech over a WebSocket trusts the same
/// servers as speech over HTTPS. Built once per process; the error says why it could not be.
pub(crate) fn tls_config() -> Result<Arc<rustls::ClientConfig>, String> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            use rustls_platform_verifier::BuilderVerifierExt as _;
            let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| e.to_string())?
                .with_platform_verifier()
                .map_err(|e| e.to_string())?
                .with_no_client_auth();
            Ok(Arc::new(config))
        })
        .clone()
}
