//! The `hark` binary: a thin wrapper over [`hark_server::Server`]. See `hark --help`.

use std::process::ExitCode;

use hark_server::Server;
use hark_server::cli::{self, Command};
use tracing_subscriber::EnvFilter;

/// jemalloc instead of glibc's malloc: the server allocates a tree per snapshot on every session's
/// task, and glibc's arenas spent about half the CPU of a 500-session load run in malloc/free
/// (docs/PERFORMANCE.md, "Load", where the three allocators are compared).
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = match cli::parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => err.exit(),
    };
    // The user's filter, with the WebSocket library's payload logs held back unless named.
    let filter = match EnvFilter::try_new(hark_server::log_filter::effective(&cli.log)) {
        Ok(filter) => filter,
        Err(err) => {
            eprintln!(
                "hark: --log / RUST_LOG {:?} is not a log filter: {err}",
                cli.log
            );
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();

    match cli.command {
        // `hark check FILE`: the file is built as `hark serve` builds it (with the demo shop's
        // host only when the file uses the demo); each problem is printed with its fix.
        Command::Check(args) => hark_server::check::run(&args.file).await,
        // `hark worker --bus URL`: the UI worker on Pipecat's Redis bus until SIGINT/SIGTERM
        // or a BusEndMessage/BusCancelMessage.
        Command::Worker(args) => {
            hark_server::bus_worker::cli::run_command(&args, shutdown_signal()).await
        }
        Command::Serve(args) => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let config = args.to_config(&cwd);
            // With --agent FILE, or --demo (the demo shop's agent, examples/shop.toml), each
            // session gets the agent's voice agent beside a UI worker; with no LLM configured
            // (no key in the environment) the offline screen mode: each typed message becomes
            // `screen` jobs and a one-sentence answer.
            let mut served = None;
            if args.bus.is_some() && !(args.demo || args.agent.is_some()) {
                eprintln!("hark: {}", hark_server::messages::BUS_NEEDS_AGENT);
                return ExitCode::from(2);
            }
            // With --bus URL, each session's bus is on Redis (its own channel).
            let bus = args.bus.as_ref().map(|url| {
                let mut bus = hark_server::RemoteBusConfig::new(url.clone());
                bus.channel_prefix = args.bus_channel_prefix.clone();
                bus
            });
            let bound = if args.demo || args.agent.is_some() {
                if args.demo_stt_url.is_some() && args.agent.is_some() {
                    tracing::warn!(
                        "--demo-stt-url is for the demo's own agent: with --agent, give the file an [stt] table"
                    );
                }
                let stt_url = args
                    .demo_stt_url
                    .as_deref()
                    .filter(|_| args.agent.is_none());
                match hark_server::serve::agent_sessions_with(args.agent.as_deref(), bus, stt_url)
                    .await
                {
                    Ok(mut s) => {
                        s.drain_limit = args.drain_timeout;
                        let factory = s.factory.clone();
                        served = Some(s);
                        Server::bind_with_handler(config, factory)
                    }
                    Err(err) => {
                        eprintln!("hark: the agent cannot start:\n{err}");
                        return ExitCode::FAILURE;
                    }
                }
            } else {
                Server::bind(config)
            };
            let server = match bound {
                Ok(server) => server,
                Err(err) => {
                    eprintln!("hark: cannot listen on {}: {err}", args.addr);
                    return ExitCode::FAILURE;
                }
            };
            if args.demo {
                tracing::info!("demo page: http://{}/", server.local_addr());
            }
            if let Some(served) = &served {
                let mode = if served.voice {
                    "voice agent"
                } else {
                    "offline screen mode"
                };
                // The demo's order service runs only for a file that uses the demo; the demo's
                // own agent names its URL.
                match &served.shop {
                    Some(shop) if args.demo && args.agent.is_none() => {
                        tracing::info!(agent = %served.agent, orders = %shop.orders.url(), "{mode}");
                    }
                    _ => tracing::info!(agent = %served.agent, "{mode}"),
                }
            }
            let served_result = server.run_until(shutdown_signal()).await;
            // The sessions are closed: their background webhooks get the drain limit to
            // finish; what still runs then is logged once per session.
            if let Some(served) = &served {
                served.drain_background().await;
            }
            match served_result {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("hark: server failed: {err}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(err) = tokio::signal::ctrl_c().await {
            tracing::error!("cannot listen for Ctrl-C: {err}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut sig) => {
                sig.recv().await;
            }
            Err(err) => {
                tracing::error!("cannot listen for SIGTERM: {err}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT received"),
        () = term => tracing::info!("SIGTERM received"),
    }
}
