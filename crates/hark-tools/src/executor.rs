//! The trait behind every kind of tool: local functions, webhooks, and your own.
//!
//! Guide: `docs/guide/inputs-and-outputs.md`.

use std::any::Any;
use std::fmt;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::context::{Arguments, ToolContext};
use crate::error::ToolError;

/// Runs one kind of tool.
///
/// The [`ToolSpec`](crate::ToolSpec) holds what the model sees (name, description, schema,
/// output, announce lines, effect, interruption rule); the executor only runs. It never changes
/// what the model sees.
pub trait ToolExecutor: Send + Sync + fmt::Debug + 'static {
    /// Runs the tool with checked arguments. `Err(ToolError)` text reaches the model as written;
    /// the registry turns a panic or any other failure into "`<tool>` failed before completing.
    /// Do not claim success."
    fn run<'a>(
        &'a self,
        arguments: Arguments,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>>;

    /// Refuses bad input before the tool runs (and before a step asks the caller to confirm it).
    /// The default accepts everything.
    fn validate(&self, arguments: Arguments) -> Result<Arguments, ToolError> {
        Ok(arguments)
    }

    /// `true` to receive arguments the schema does not name (the executor then refuses them in
    /// its own words). With `false`, the default, the registry refuses them first.
    fn checks_extra_arguments(&self) -> bool {
        false
    }

    /// [`validate`](Self::validate), keeping what the check decoded for the run: the registry
    /// calls this, then [`run_validated`](Self::run_validated) with what it returns, so an
    /// executor that must decode its input to check it (a typed tool whose input has a date or a
    /// phone number) decodes it once per call. The default calls `validate` and keeps nothing.
    fn validate_for_run(&self, arguments: Arguments) -> Result<Validated, ToolError> {
        self.validate(arguments).map(Validated::new)
    }

    /// Runs the tool with what [`validate_for_run`](Self::validate_for_run) returned. The
    /// default runs [`run`](Self::run) with its arguments.
    fn run_validated<'a>(
        &'a self,
        validated: Validated,
        context: &'a ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        self.run(validated.arguments, context)
    }
}

/// Checked arguments on their way from [`ToolExecutor::validate_for_run`] to
/// [`ToolExecutor::run_validated`], with the executor's own decode of them when its check made
/// one.
pub struct Validated {
    /// The arguments as checked (locked values filled): what hooks, the precheck and announce
    /// lines read.
    pub arguments: Arguments,
    decoded: Option<Box<dyn Any + Send>>,
}

impl Validated {
    /// Arguments with no decode kept.
    pub fn new(arguments: Arguments) -> Self {
        Validated {
            arguments,
            decoded: None,
        }
    }

    /// Arguments and the executor's decode of them (any `Send` value; the run takes it back
    /// with [`take_decoded`](Self::take_decoded)).
    pub fn with_decoded<T: Send + 'static>(arguments: Arguments, decoded: T) -> Self {
        Validated {
            arguments,
            decoded: Some(Box::new(decoded)),
        }
    }

    /// The decode kept by [`with_decoded`](Self::with_decoded), when it is a `T`.
    pub fn take_decoded<T: 'static>(&mut self) -> Option<T> {
        match self.decoded.take()?.downcast::<T>() {
            Ok(decoded) => Some(*decoded),
            Err(other) => {
                self.decoded = Some(other);
                None
            }
        }
    }
}

impl fmt::Debug for Validated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validated")
            .field("arguments", &self.arguments)
            .field("decoded", &self.decoded.is_some())
            .finish()
    }
}
