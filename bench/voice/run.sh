#!/usr/bin/env bash
# End of the caller's speech (the VAD's stop) to the first bot audio, `hark serve` beside a
# Pipecat 1.14 bot, both on the same scripted STT, LLM and TTS (bench/voice/scripted_services.py)
# and measured on the wire by the same client (bench/voice/latency_client.py), one session each.
#
#   cargo build --release -p hark-server && scripts/fetch-model.sh
#   bench/voice/run.sh [TURNS]          # default 60 turns each, after 2 of warm-up
#
# Runs, one after the other: hark (release build, target/release/hark, the agent file
# bench/voice/hark_agent.toml), Pipecat with its default turn strategies (--turn default), and
# Pipecat with a turn at the VAD's stop as Hark takes it (--turn vad). Needs espeak-ng and a
# Python with pipecat-ai==1.14.0 (its silero extra, and aiohttp, websockets, numpy, soxr):
# PYTHON, default target/py-venv/bin/python (of the main worktree when this one has none).
# Writes per-turn JSON lines and the Pipecat bot's own per-turn clock to OUT (default
# target/voice-latency/), prints one summary line per run.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
turns="${1:-60}"
warmup=2
out="${OUT:-$repo/target/voice-latency}"
python="${PYTHON:-$repo/target/py-venv/bin/python}"
[[ -x "$python" ]] || python="$(git -C "$repo" worktree list --porcelain | awk 'NR==1{print $2}')/target/py-venv/bin/python"
hark="${HARK_BIN:-$repo/target/release/hark}"
base_port="${PORT:-18765}"
services_url="http://127.0.0.1:$base_port/v1"
mkdir -p "$out"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

"$python" "$here/scripted_services.py" --port "$base_port" >"$out/services.log" 2>&1 &
pids+=($!)

client() { # label url
  "$python" "$here/latency_client.py" --url "$2" --rounds "$turns" --warmup "$warmup" \
    --out "$out/$1.jsonl" --label "$1" 2>>"$out/$1.client.log"
}

echo "# $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg) turns: $turns"

HARK_BENCH_SERVICES="$services_url" "$hark" serve --agent "$here/hark_agent.toml" \
  --addr "127.0.0.1:$((base_port + 1))" --log warn >"$out/hark.log" 2>&1 &
hark_pid=$!
pids+=($hark_pid)
client hark "ws://127.0.0.1:$((base_port + 1))/ws"
kill "$hark_pid"
wait "$hark_pid" 2>/dev/null || true

for turn in default vad; do
  rm -f "$out/pipecat-$turn.server.jsonl"
  "$python" "$here/pipecat_bot.py" --services "$services_url" --port "$((base_port + 2))" \
    --turn "$turn" --log "$out/pipecat-$turn.server.jsonl" >"$out/pipecat-$turn.log" 2>&1 &
  bot_pid=$!
  pids+=($bot_pid)
  client "pipecat-$turn" "ws://127.0.0.1:$((base_port + 2))"
  kill "$bot_pid" 2>/dev/null || true
  wait "$bot_pid" 2>/dev/null || true
done
echo "# requests served: $(curl -s "http://127.0.0.1:$base_port/counts")"
for turn in default vad; do
  "$python" "$here/server_clock.py" "$out/pipecat-$turn.server.jsonl" --warmup "$warmup"
done
