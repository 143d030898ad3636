// What the scripted "model" does in one crash-fuzz turn, and when the kill may land. Every tool
// command appends a token unique to that call to the ledger, so a re-run shows up as a repeat.
import type { Step } from '../../emulator/wire.ts';
import { between, pick, type Rng } from './env.ts';

export type Phase = 'request' | 'stream' | 'command' | 'state-write' | 'failed' | 'idle';

export const INTERACTIVE_PHASES: readonly Phase[] = ['request', 'stream', 'command', 'command', 'state-write', 'state-write', 'failed', 'failed', 'idle'];
export const ONESHOT_PHASES: readonly Phase[] = ['request', 'stream', 'command', 'state-write', 'failed'];

export interface Plan {
  phase: Phase;
  steps: Step[];
  /** Ledger tokens of this turn's tool calls. */
  tokens: string[];
  /** The kill lands this long after the turn's first request reached the emulator. */
  delayMs: number;
  /** Aim at a state write instead: kill when this many temp files have come and gone (then `delayMs` is a deadline). */
  writesToSkip?: number;
}

/** Tokens look like `tk-<run>-<call>`; commands carry `marker` so leftovers can be found with ps. */
export const TOKEN = /tk-[a-z0-9]+-\d+-\d+/g;

export function tokensIn(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

function command(marker: string, token: string, rng: Rng): string {
  // Sleep before and after the append so a kill can land before, between or after.
  return `: ${marker}; sleep 0.0${between(rng, 1, 9)}; echo ${token} >> ledger; sleep 0.${between(rng, 10, 25)}`;
}

/**
 * `interactive` turns retry a failure three times before the menu, one-shots twice, so a
 * failing phase queues as many failures as the front-end will try.
 */
export function planFor(phase: Phase, rng: Rng, run: string, marker: string, interactive: boolean): Plan {
  const token = (k: number): string => `tk-${run}-${k}`;
  switch (phase) {
    case 'request':
      // The server accepts the request and never answers: the kill lands while agentx waits.
      return { phase, steps: [{ kind: 'hang' }], tokens: [], delayMs: between(rng, 0, 150) };
    case 'stream':
      return {
        phase,
        steps: [{ kind: 'text', text: `A slow answer for ${run}, ${'streamed word by word '.repeat(6)}done.`, chunks: 24, delayMs: 20 }],
        tokens: [],
        delayMs: between(rng, 0, 550),
      };
    case 'command': {
      const n = between(rng, 1, 3);
      const tokens = Array.from({ length: n }, (_, k) => token(k));
      return {
        phase,
        steps: [{ kind: 'calls', calls: tokens.map((t) => ({ commands: [command(marker, t, rng)] })) }],
        tokens,
        delayMs: between(rng, 20, 80 + 330 * n),
      };
    }
    case 'state-write': {
      // Many calls answered back to back: unknown tools are journaled without running anything,
      // and every third call appends a token and prints 48 KB that the journal keeps as its
      // output, so the state grows and is rewritten continuously. The kill is aimed at a write
      // (see `writesToSkip`): it lands when the n-th temp file of agentx appears.
      const calls: ({ commands: string[] } | { name: string; arguments: string })[] = [];
      const tokens: string[] = [];
      for (let k = 0; k < 18; k++) {
        if (k % 3 === 2) {
          const t = token(k);
          tokens.push(t);
          calls.push({ commands: [`: ${marker}; echo ${t} >> ledger; head -c 48000 /dev/zero | tr '\\0' x`] });
        } else {
          calls.push({ name: 'no_such_tool', arguments: `{"k":${k}}` });
        }
      }
      return { phase, steps: [{ kind: 'calls', calls }], tokens, delayMs: between(rng, 20, 700), writesToSkip: between(rng, 0, 12) };
    }
    case 'failed': {
      const attempts = interactive ? 3 : 2;
      const failure = pick<Step>(rng, [
        { kind: 'http_error', status: 503, times: attempts },
        { kind: 'failed', code: 'server_error', message: 'The server had an error' },
        { kind: 'cut', afterText: 'This answer is cut' },
      ]);
      const steps = failure.kind === 'http_error' ? [failure] : Array.from({ length: attempts }, () => failure);
      return { phase, steps, tokens: [], delayMs: between(rng, 0, 400) };
    }
    case 'idle':
      return { phase, steps: [], tokens: [], delayMs: 0 };
  }
}
