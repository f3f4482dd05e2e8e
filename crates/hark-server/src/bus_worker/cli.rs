//! `hark worker`: the flags into a [`BusWorkerConfig`], then [`run`] until a signal or the
//! bus ends it.

use std::future::Future;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use hark_bus::RedisBusConfig;
use hark_classify::LocalClassifier;
use hark_llm::OpenAiCompatible;

use super::{BusWorkerConfig, Ended, default_runner_name, run};
use crate::cli::WorkerArgs;

/// The worker's configuration for `args` (the classifier loads here, off the async workers).
pub async fn config(args: &WorkerArgs) -> BusWorkerConfig {
    let mut bus = RedisBusConfig::new(args.bus.clone(), args.channel.clone());
    bus.max_message_bytes = args.max_message_bytes;
    bus.limit_setting = Some("--max-message-bytes".into());
    let classifier = if args.no_classifier {
        None
    } else {
        match tokio::task::spawn_blocking(LocalClassifier::new).await {
            Ok(c) => Some(Arc::new(c) as Arc<dyn hark_classify::Classifier>),
            Err(e) => {
                tracing::warn!(
                    "the local classifier did not load: {e}; find, check and select will fail"
                );
                None
            }
        }
    };
    let respond = args.respond_model.as_ref().map(|model| {
        let key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|k| !k.is_empty());
        if key.is_none() {
            tracing::warn!(
                "{}",
                crate::messages::respond_model_without_key(model, &args.llm_base_url)
            );
        }
        let provider = OpenAiCompatible::new(args.llm_base_url.clone(), key);
        (
            Arc::new(provider) as Arc<dyn hark_llm::Provider>,
            model.clone(),
        )
    });
    BusWorkerConfig {
        bus,
        name: args.name.clone(),
        runner: args.runner.clone().unwrap_or_else(default_runner_name),
        classifier,
        respond,
        instruction: None,
        reply_tool: args.reply_tool,
        idle_timeout: Duration::from_secs_f64(args.idle_timeout),
    }
}

/// Runs `hark worker` until `shutdown` or the bus ends it.
pub async fn run_command(args: &WorkerArgs, shutdown: impl Future<Output = ()>) -> ExitCode {
    let config = config(args).await;
    match run(config, shutdown).await {
        Ok(Ended::Signal) => ExitCode::SUCCESS,
        Ok(Ended::End { source } | Ended::Cancel { source }) => {
            tracing::info!(%source, "ended by a bus message");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("hark worker: {e}");
            ExitCode::from(2)
        }
    }
}
