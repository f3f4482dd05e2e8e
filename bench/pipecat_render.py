"""Time pipecat-ai 1.14.0 on the same job as hark-ui's `decode_render/200` criterion bench.

The job, per iteration, as pipecat's server does it for a `ui-snapshot` (pipeline/worker.py,
workers/ui/ui_worker.py): `json.loads` of the snapshot JSON text, pydantic validation
(`UISnapshotData`), `tree.model_dump(exclude_none=True)`, then `UIWorker.render_ui_state`.

Usage:
    python3 bench/pipecat_render.py [SNAPSHOT.json ...]
    python3 bench/pipecat_render.py --iterations N [decode_render|render_only]
The second form runs the job exactly N times on the default input and prints nothing timed:
for counting instructions (`valgrind --tool=callgrind`, run with two values of N and take the
difference per iteration), the count crates/hark-rtvi/examples/decode_count.rs makes for Hark's decode.
Default input: crates/hark-ui/benches/data/snapshot_200.json (200 nodes). When pipecat-ai is not
importable, the script makes a throwaway venv under /tmp (pipecat-ai==1.14.0 from PyPI) and
re-runs itself there. Prints mean and best time per iteration in microseconds.
"""

import os
import subprocess
import sys
import timeit
from pathlib import Path

PIPECAT_VERSION = "1.14.0"
REPO = Path(__file__).resolve().parent.parent
DEFAULT_INPUT = REPO / "crates/hark-ui/benches/data/snapshot_200.json"


def ensure_pipecat():
    try:
        import pipecat  # noqa: F401

        return
    except ImportError:
        pass
    if os.environ.get("HARK_PIPECAT_BENCH_CHILD"):
        sys.exit("pipecat-ai could not be imported even in the venv")
    venv = Path(os.environ.get("HARK_PIPECAT_VENV", "/tmp/hark-pipecat-bench-venv"))
    if not (venv / "bin/python").exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(venv)])
    subprocess.check_call([str(venv / "bin/pip"), "install", "-q", f"pipecat-ai=={PIPECAT_VERSION}"])
    env = dict(os.environ, HARK_PIPECAT_BENCH_CHILD="1")
    os.execve(str(venv / "bin/python"), [str(venv / "bin/python"), __file__, *sys.argv[1:]], env)


def main():
    ensure_pipecat()
    import json
    from types import SimpleNamespace

    import pipecat
    from pipecat.processors.frameworks.rtvi.models import UISnapshotData
    from pipecat.workers.ui.ui_worker import UIWorker

    if sys.argv[1:2] == ["--iterations"]:
        count_iterations(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "decode_render")
        return
    paths = [Path(p) for p in sys.argv[1:]] or [DEFAULT_INPUT]
    print(f"pipecat-ai {pipecat.version() if hasattr(pipecat, 'version') else PIPECAT_VERSION}, "
          f"Python {sys.version.split()[0]}")
    for path in paths:
        text = path.read_text(encoding="utf-8")

        def decode_render():
            tree = UISnapshotData.model_validate({"tree": json.loads(text)}).tree
            worker = SimpleNamespace(_latest_snapshot=tree.model_dump(exclude_none=True))
            return UIWorker.render_ui_state(worker)

        dumped = UISnapshotData.model_validate({"tree": json.loads(text)}).tree.model_dump(exclude_none=True)

        def render_only():
            return UIWorker.render_ui_state(SimpleNamespace(_latest_snapshot=dumped))

        for label, fn in [("decode_render", decode_render), ("render_only", render_only)]:
            fn()
            timer = timeit.Timer(fn)
            number, _ = timer.autorange()
            runs = timer.repeat(repeat=7, number=number)
            per = [r / number * 1e6 for r in runs]
            print(f"{path.name} {label}: mean {sum(per) / len(per):.1f} us, best {min(per):.1f} us "
                  f"({number} iterations x 7)")


def count_iterations(n, job):
    """Runs `job` on the default input exactly `n` times (no timer): an instruction count."""
    import json
    from types import SimpleNamespace

    from pipecat.processors.frameworks.rtvi.models import UISnapshotData
    from pipecat.workers.ui.ui_worker import UIWorker

    text = DEFAULT_INPUT.read_text(encoding="utf-8")
    dumped = UISnapshotData.model_validate({"tree": json.loads(text)}).tree.model_dump(exclude_none=True)
    total = 0
    for _ in range(n):
        if job == "render_only":
            total += len(UIWorker.render_ui_state(SimpleNamespace(_latest_snapshot=dumped)))
        else:
            tree = UISnapshotData.model_validate({"tree": json.loads(text)}).tree
            worker = SimpleNamespace(_latest_snapshot=tree.model_dump(exclude_none=True))
            total += len(UIWorker.render_ui_state(worker))
    print(f"{job}: {n} iterations ({total})")


if __name__ == "__main__":
    main()
