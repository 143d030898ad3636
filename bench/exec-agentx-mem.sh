#!/bin/bash
# agentx's own peak RSS (GNU time) in a --json one-shot against the emulator: `flood` (1 GB on pipes), `ptyflood` (1 GB on a PTY), `busy` (10 sessions running `yes`). Needs `npm run build` first. Usage: bench/exec-agentx-mem.sh flood|ptyflood|busy
ROOT=$(cd "$(dirname "$0")/.." && pwd)
set -e
R=$(mktemp -d ${TMPDIR:-/tmp}/agentx-mem-XXXX); mkdir -p $R/home $R/project
node $ROOT/dist/emulator.js --port 0 > $R/emu.out 2>&1 &
EMU=$!
for i in $(seq 50); do grep -q EMULATOR_URL $R/emu.out && break; sleep 0.1; done
URL=$(sed -n 's/EMULATOR_URL=//p' $R/emu.out)
enq() { curl -sS -X POST -H 'content-type: application/json' -d "$1" ${URL%/v1}/__emulator/enqueue ; echo; }
fc() { python3 -c 'import json,sys; print(json.dumps({"kind":"function","name":sys.argv[1],"arguments":sys.argv[2]}))' "$1" "$2"; }
STEPS=$(python3 $ROOT/bench/exec-agentx-steps.py $1)
enq "$STEPS"
cd $R/project
env -i PATH=$PATH HOME=$R/home SHELL=/bin/sh LANG=C.UTF-8 AGENTX_BASE_URL=$URL AGENTX_API_KEY=sk-test-e2e-secret-0123456789 \
  /usr/bin/time -f "agentx maxrss %M KB wall %e s exit %x" node $ROOT/bin/agentx.js --json "go" > $R/out.jsonl 2> $R/err.txt || true
tail -1 $R/err.txt; wc -l $R/out.jsonl; grep -o '"type":"[a-z_]*"' $R/out.jsonl | sort | uniq -c
grep -o 'Process [a-z ]*[0-9A-Z]*' $R/out.jsonl | head; grep -o 'Note: [0-9]* bytes' $R/out.jsonl | head -3
kill $EMU
rm -rf "$R"
