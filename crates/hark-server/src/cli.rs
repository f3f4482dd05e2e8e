//! Command line of the `hark` binary (clap, every flag also settable from the environment).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::{self, ServerConfig};

/// `hark`: a toolkit and server for voice agents.
#[derive(Debug, Parser)]
#[command(
    name = "hark",
    version,
    about = "Hark: voice agents with typed tools and a UI worker."
)]
pub struct Cli {
    /// Log filter in `tracing` EnvFilter syntax (e.g. `info`, `hark_server=debug`).
    #[arg(long, env = "RUST_LOG", default_value = "info", global = true)]
    pub log: String,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `hark`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve RTVI over WebSocket at /ws (Pipecat's JS client) and, with --demo, the demo page at /.
    Serve(ServeArgs),
}

/// Flags of `hark serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on (host:port; port 0 picks a free one).
    #[arg(long, env = "HARK_ADDR", default_value = config::DEFAULT_ADDR)]
    pub addr: SocketAddr,
    /// Serve the demo page (from --web-dir) at /; without it / only names the /ws endpoint.
    #[arg(long)]
    pub demo: bool,
    /// Directory of the built demo page [default: web/dist under the current directory, else
    /// under the workspace hark was built in].
    #[arg(long, env = "HARK_WEB_DIR")]
    pub web_dir: Option<PathBuf>,
    /// Largest incoming WebSocket frame, in bytes; a larger one closes the session with code 1009.
    #[arg(long, env = "HARK_MAX_FRAME_BYTES", default_value_t = config::DEFAULT_MAX_FRAME_BYTES,
          value_parser = parse_frame_limit)]
    pub max_frame_bytes: usize,
}

/// `--max-frame-bytes`: a whole number of bytes, at least 1.
fn parse_frame_limit(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 byte".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "{text:?} is not a whole number of bytes (e.g. 1048576)"
        )),
    }
}

impl ServeArgs {
    /// The server settings these flags ask for; `cwd` is where `web/dist` is looked for first.
    pub fn to_config(&self, cwd: &Path) -> ServerConfig {
        let web_dir = self.demo.then(|| {
            self.web_dir
                .clone()
                .unwrap_or_else(|| config::default_web_dir(cwd))
        });
        ServerConfig {
            addr: self.addr,
            web_dir,
            max_frame_bytes: self.max_frame_bytes,
            ..ServerConfig::default()
        }
    }
}

/// The clap command of `hark`, with the `serve` flags and every environment variable repeated
/// under `hark --help`, so the top-level help documents all of them.
pub fn command() -> clap::Command {
    // Render the subcommand's help from a separately built copy: rendering a subcommand of an
    // unbuilt command leaves it half-built, which breaks later parsing.
    let mut built = Cli::command();
    built.build();
    let serve_help = built
        .find_subcommand_mut("serve")
        .map(|serve| serve.render_long_help().to_string())
        .unwrap_or_default();
    Cli::command().after_long_help(format!(
        "`hark serve --help`:\n\n{serve_help}\nEnvironment:\n  \
         HARK_ADDR             same as --addr\n  \
         HARK_WEB_DIR          same as --web-dir\n  \
         HARK_MAX_FRAME_BYTES  same as --max-frame-bytes\n  \
         RUST_LOG              same as --log (log filter, default info)\n"
    ))
}

/// Parses `args` (the first item is the program name).
///
/// # Errors
/// clap's error, which prints the usage problem (or the help/version text) when `exit()`ed.
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let matches = command().try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_documents_every_flag_and_env_var() {
        let help = command().render_long_help().to_string();
        for needle in [
            "--addr",
            "--demo",
            "--web-dir",
            "--max-frame-bytes",
            "--log",
            "HARK_ADDR",
            "HARK_WEB_DIR",
            "HARK_MAX_FRAME_BYTES",
            "RUST_LOG",
            "127.0.0.1:7860",
            "1048576",
        ] {
            assert!(
                help.contains(needle),
                "`hark --help` lacks {needle}:\n{help}"
            );
        }
    }

    #[test]
    fn serve_defaults_and_flags() {
        let cli = parse_from(["hark", "serve"]).unwrap();
        let Command::Serve(args) = cli.command;
        assert_eq!(args.addr.to_string(), "127.0.0.1:7860");
        assert!(!args.demo);
        assert_eq!(args.max_frame_bytes, 1_048_576);
        assert!(args.to_config(Path::new("/")).web_dir.is_none());

        let cli = parse_from([
            "hark",
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--demo",
            "--web-dir",
            "/srv/page",
            "--max-frame-bytes",
            "4096",
        ])
        .unwrap();
        let Command::Serve(args) = cli.command;
        let config = args.to_config(Path::new("/"));
        assert_eq!(config.addr.port(), 0);
        assert_eq!(config.web_dir, Some(PathBuf::from("/srv/page")));
        assert_eq!(config.max_frame_bytes, 4096);
    }

    #[test]
    fn bad_flags_are_refused_with_the_flag_name() {
        let err = parse_from(["hark", "serve", "--addr", "nowhere"]).unwrap_err();
        assert!(err.to_string().contains("--addr"), "{err}");
        for bad in ["--max-frame-bytes=lots", "--max-frame-bytes=0"] {
            let err = parse_from(["hark", "serve", bad]).unwrap_err();
            assert!(err.to_string().contains("--max-frame-bytes"), "{err}");
        }
    }
}
