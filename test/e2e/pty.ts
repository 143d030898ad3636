// Drives the built CLI in a real pseudo-terminal (@lydell/node-pty, prebuilt binaries): keys in, screen text out (ANSI
// stripped). Tests wait for text on screen, never for fixed delays.
import { spawn as ptySpawn, type IPty } from '@lydell/node-pty';
import { CLI, type Sandbox } from './harness.ts';

// CSI (incl. private modes), OSC, two-byte escapes, and stray carriage returns.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>NOM78c]|\r/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

export const KEY = {
  enter: '\r',
  up: '\x1b[A',
  down: '\x1b[B',
  esc: '\x1b',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlT: '\x14',
  tab: '\t',
} as const;

export interface PtyRun {
  readonly pid: number;
  /** Everything shown so far, ANSI stripped. */
  screen(): string;
  /** Everything the program wrote, escape sequences included. */
  raw(): string;
  /** Screen text after the read cursor (what the next waitFor searches). */
  rest(): string;
  /** Waits for `pattern` after the read cursor, then moves the cursor past the match. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  write(keys: string): void;
  /** Types a line and presses Enter (as separate writes, like a person: Enter arrives alone). */
  line(text: string): void;
  exited: Promise<{ exitCode: number; signal?: number }>;
  kill(signal?: string): void;
}

export function spawnAgentx(sb: Sandbox, args: string[] = [], cwd = sb.cwd): PtyRun {
  return spawnInPty(process.execPath, [CLI, ...args], sb, cwd);
}

/** Any program in a pty (a shell that then runs agentx, for job control). */
export function spawnInPty(file: string, args: string[], sb: Sandbox, cwd = sb.cwd, env: NodeJS.ProcessEnv = {}): PtyRun {
  const p: IPty = ptySpawn(file, args, {
    name: 'xterm-256color',
    cols: 160,
    rows: 50,
    cwd,
    env: { TERM: 'xterm-256color', ...sb.env, ...env },
  });
  let raw = '';
  let text = '';
  let cursor = 0;
  const listeners = new Set<() => void>();
  p.onData((d) => {
    raw += d;
    text = stripAnsi(raw);
    for (const l of listeners) l();
  });
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => {
    p.onExit((e) => {
      for (const l of listeners) l();
      resolve(e);
    });
  });
  let alive = true;
  void exited.then(() => {
    alive = false;
  });
  const find = (pattern: string | RegExp): { index: number; match: string } | undefined => {
    const hay = text.slice(cursor);
    if (typeof pattern === 'string') {
      const i = hay.indexOf(pattern);
      return i === -1 ? undefined : { index: cursor + i, match: pattern };
    }
    const m = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(hay);
    return m ? { index: cursor + m.index, match: m[0] } : undefined;
  };
  return {
    pid: p.pid,
    screen: () => text,
    raw: () => raw,
    rest: () => text.slice(cursor),
    // Generous: e2e files run in parallel (30-process one-shot tests among them), and a starved
    // machine must not turn a slow screen into a failure. A passing wait returns as soon as it matches.
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const hit = find(pattern);
          if (hit) {
            cleanup();
            cursor = hit.index + hit.match.length;
            resolve(hit.match);
          } else if (!alive) {
            cleanup();
            reject(new Error(`agentx exited while waiting for ${String(pattern)}; screen after cursor:\n${text.slice(cursor)}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${String(pattern)}; screen after cursor:\n${text.slice(cursor)}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    write: (keys) => p.write(keys),
    line(textLine) {
      p.write(textLine);
      p.write(KEY.enter);
    },
    exited,
    kill(signal = 'SIGKILL') {
      if (alive) p.kill(signal);
    },
  };
}
