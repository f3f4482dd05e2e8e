//! Every text of hark-bus that a model or a caller reads, as functions with named inputs.
//!
//! A worker's job answers one of them as `{"error": text}` (status `error`); job groups list
//! them in a [`crate::job_group::JobGroupError`]. Tests at the bottom pin them.

/// A worker name already taken on the bus.
pub fn duplicate_worker(name: &str) -> String {
    format!("a worker named {name} is already on the bus: give each worker its own name")
}

/// An empty worker name.
pub fn empty_worker_name() -> &'static str {
    "a worker needs a name: the empty name cannot be addressed"
}

/// A job for a worker that is not on the bus.
pub fn unknown_worker(name: &str) -> String {
    format!("no worker named {name} is on the bus: register it first, or check the name")
}

/// A job name the worker has no handler for.
pub fn unknown_job(worker: &str, job: &str) -> String {
    format!("the worker {worker} has no job named {job}")
}

/// A job name routed twice on one worker.
pub fn route_taken(worker: &str, job: &str) -> String {
    format!("the worker {worker} already has a handler for the job {job}: route each job once")
}

/// A job group with no workers.
pub fn group_without_workers() -> &'static str {
    "a job group needs at least one worker"
}

/// A worker named twice in one job group.
pub fn group_worker_twice(name: &str) -> String {
    format!("the worker {name} is named twice in the job group: name each worker once")
}

/// A job group refused because `limit` groups of the session are running already
/// ([`crate::job_group::JobGroups::max_open`]).
pub fn too_many_job_groups(limit: usize) -> String {
    format!(
        "{limit} job groups are running already, the most one session may run at once: wait \
         for one to finish or cancel one, then start this group again"
    )
}

/// A worker whose task panicked before answering.
pub fn worker_panicked(name: &str) -> String {
    format!("the worker {name} failed before answering")
}

/// Bytes on the bus that are not a pipecat envelope.
pub fn not_an_envelope(detail: &str) -> String {
    format!("not a pipecat bus envelope ({{\"__type__\", \"__data__\"}} JSON): {detail}")
}

/// A known pipecat class whose fields do not have pipecat's shapes.
pub fn bad_fields(class: &str, detail: &str) -> String {
    format!("a {class} with fields that do not fit pipecat's: {detail}")
}

/// A message larger than the bus takes, in either direction.
pub fn message_too_large(bytes: usize, limit: usize, channel: &str) -> String {
    format!(
        "a bus message of {bytes} bytes on Redis channel {channel} is larger than the limit of \
         {limit} bytes: it was dropped; send less (a smaller snapshot or payload) or raise the limit"
    )
}

/// A message larger than the bus takes, naming the setting that raises the limit.
pub fn message_too_large_set_by(
    bytes: usize,
    limit: usize,
    channel: &str,
    setting: &str,
) -> String {
    format!(
        "a bus message of {bytes} bytes on Redis channel {channel} is larger than the limit of \
         {limit} bytes ({setting}): it was dropped; send less (a smaller snapshot or payload) or \
         raise {setting}"
    )
}

/// The one log line for bus messages of a class Hark does not read (each class once).
pub fn unknown_class_ignored(class: &str) -> String {
    format!(
        "ignored a bus message of class {class}, which Hark does not read (said once per class; \
         later ones are ignored quietly)"
    )
}

/// Publishing while the bus has no connection to Redis.
pub fn redis_disconnected(url: &str, channel: &str) -> String {
    format!(
        "the bus is not connected to Redis at {url} (channel {channel}): it reconnects by \
         itself; check that Redis is running"
    )
}

/// Redis refused or lost one publish.
pub fn redis_publish_failed(url: &str, channel: &str, detail: &str) -> String {
    format!("publishing on Redis channel {channel} at {url} failed: {detail}")
}

/// A job that got no answer over Redis before its timeout.
pub fn redis_job_timed_out(worker: &str, job: &str, seconds: f64, channel: &str) -> String {
    format!(
        "the worker {worker} did not answer the {job} job within {seconds} s on Redis channel \
         {channel}: check that Redis runs and that a worker named {worker} is on the channel"
    )
}

/// A job that could not be sent over Redis.
pub fn redis_job_not_sent(worker: &str, job: &str, detail: &str) -> String {
    format!("the {job} job for the worker {worker} was not sent: {detail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bus_says_what_to_fix() {
        assert_eq!(
            duplicate_worker("ui"),
            "a worker named ui is already on the bus: give each worker its own name"
        );
        assert_eq!(
            empty_worker_name(),
            "a worker needs a name: the empty name cannot be addressed"
        );
        assert_eq!(
            unknown_worker("ui"),
            "no worker named ui is on the bus: register it first, or check the name"
        );
        assert_eq!(
            unknown_job("ui", "paint"),
            "the worker ui has no job named paint"
        );
        assert_eq!(
            route_taken("ui", "respond"),
            "the worker ui already has a handler for the job respond: route each job once"
        );
        assert_eq!(
            group_without_workers(),
            "a job group needs at least one worker"
        );
        assert_eq!(
            group_worker_twice("ui"),
            "the worker ui is named twice in the job group: name each worker once"
        );
        assert_eq!(
            too_many_job_groups(2),
            "2 job groups are running already, the most one session may run at once: wait for \
             one to finish or cancel one, then start this group again"
        );
        assert_eq!(
            worker_panicked("ui"),
            "the worker ui failed before answering"
        );
        assert_eq!(
            message_too_large(10, 4, "c"),
            "a bus message of 10 bytes on Redis channel c is larger than the limit of 4 bytes: \
             it was dropped; send less (a smaller snapshot or payload) or raise the limit"
        );
        assert_eq!(
            message_too_large_set_by(10, 4, "call:7", "--max-message-bytes"),
            "a bus message of 10 bytes on Redis channel call:7 is larger than the limit of 4 \
             bytes (--max-message-bytes): it was dropped; send less (a smaller snapshot or \
             payload) or raise --max-message-bytes"
        );
        assert_eq!(
            unknown_class_ignored("pipecat.bus.messages.BusFrameMessage"),
            "ignored a bus message of class pipecat.bus.messages.BusFrameMessage, which Hark \
             does not read (said once per class; later ones are ignored quietly)"
        );
        assert_eq!(
            redis_job_timed_out("ui", "screen", 0.5, "c"),
            "the worker ui did not answer the screen job within 0.5 s on Redis channel c: check \
             that Redis runs and that a worker named ui is on the channel"
        );
    }
}
