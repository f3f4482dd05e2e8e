//! Typed tools for voice agents (work in progress: see the crate README).

pub mod call;
pub mod error;
pub mod executor;

pub use call::{CallHooks, CallInfo, CallType, DrainReport};
pub use error::{ToolError, ToolErrorKind};
pub use executor::{Arguments, ToolContext, ToolExecutor};
