// State write benchmark: a session with 20 checkpoints and a full 64 KB transcript, saved the
// way the interactive session saves it (temp file, fsync, rename, fsync dir). Bundled and run
// by bench/run.mjs.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { emptyState, recordTurn, type SessionState } from '../src/store/state.ts';
import { saveState } from '../src/store/store.ts';
import { Engine } from '../src/engine/engine.ts';
import { echoCall, echoTool, harness } from '../test/support/engine.ts';

function fullState(): SessionState {
  let s = emptyState();
  for (let n = 1; n <= 25; n++) {
    s = recordTurn(s, {
      responseId: `resp_${String(n).padStart(24, '0')}`,
      userMessage: `question ${n}: ${'why does the build fail on CI but not locally? '.repeat(40)}`,
      assistantMessage: `answer ${n}: ${'the lockfile pins a different minor version; run npm ci. '.repeat(60)}`,
      usage: { inputTokens: 12_000, cachedTokens: 9_000, outputTokens: 800, reasoningTokens: 300 },
      toolSummaries: [`$ npm test → exit 1\n${'FAIL test/x.test.ts '.repeat(30)}`],
      now: new Date(Date.UTC(2026, 11, 1, 12, n)),
    });
  }
  return s;
}

export function benchStateWrite(dir: string, runs: number): { median: number; p10: number; p90: number; bytes: number; historyEntries: number; transcriptBytes: number } {
  const s = fullState();
  const path = join(dir, '.agentx_responseid');
  const times: number[] = [];
  for (let i = 0; i < runs + 10; i++) {
    const t0 = process.hrtime.bigint();
    saveState(path, s);
    if (i >= 10) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const transcriptBytes = Buffer.byteLength(JSON.stringify(s.transcript));
  return {
    median: times[Math.floor(times.length / 2)] ?? 0,
    p10: times[Math.floor(times.length * 0.1)] ?? 0,
    p90: times[Math.floor(times.length * 0.9)] ?? 0,
    bytes: statSync(path).size,
    historyEntries: s.history.length,
    transcriptBytes,
  };
}

/**
 * State writes of one turn with `calls` tool calls, counted on the real session store with the
 * real engine (a scripted model): per call `started` and `completed`, plus the turn's own.
 */
export async function benchWritesPerToolCall(calls: number): Promise<{ total: number; perCall: number; perTurnOverhead: number }> {
  const count = async (n: number): Promise<number> => {
    const items = Array.from({ length: n }, (_, i) => echoCall(`c${i}`, String(i)));
    const h = harness(n > 0 ? [{ text: '', calls: items }, { text: 'done' }] : [{ text: 'done' }], [echoTool([])]);
    await new Engine(h.deps).message('go', [], new AbortController().signal);
    return h.store.saves;
  };
  const none = await count(0);
  const total = await count(calls);
  return { total, perCall: (total - none - 1) / calls, perTurnOverhead: none };
}
