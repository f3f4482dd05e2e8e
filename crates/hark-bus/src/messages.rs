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
    }
}
