// Job groups the server reports (`ui-job-group`, RTVI §2): every envelope is kept, in arrival
// order, and one status line says how the latest group is doing.

/** Kept envelopes and each group's progress, for `window.harkDemo.jobGroups` and the status line. */
export function createJobGroups() {
  const envelopes = [];
  const groups = new Map(); // job_id -> { label, workers, done: Map<worker, status>, closed }

  /** Records one envelope and returns the status line of its group. */
  function record(envelope) {
    envelopes.push(envelope);
    const id = envelope?.job_id;
    if (typeof id !== "string") return "";
    let group = groups.get(id);
    if (!group) {
      group = { label: null, workers: [], done: new Map(), closed: false };
      groups.set(id, group);
    }
    switch (envelope.kind) {
      case "group_started":
        group.label = envelope.label ?? null;
        group.workers = Array.isArray(envelope.workers) ? envelope.workers : [];
        break;
      case "job_completed":
        group.done.set(envelope.worker_name, envelope.status);
        break;
      case "group_completed":
        group.closed = true;
        break;
      default:
        break;
    }
    return statusLine(group);
  }

  return { envelopes, record };
}

function statusLine(group) {
  const title = group.label ?? "Job group";
  const total = Math.max(group.workers.length, group.done.size);
  if (!group.closed) return `${title}: ${group.done.size} of ${total} done`;
  const cancelled = [...group.done.values()].filter((s) => s === "cancelled").length;
  return cancelled > 0 ? `${title}: finished, ${cancelled} cancelled` : `${title}: finished`;
}
