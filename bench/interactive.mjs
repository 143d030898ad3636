// Interactive latency in a real pseudo-terminal (@lydell/node-pty): keypress-to-echo and first-token
// render, for agentx's REPL and Codex's TUI, over one conversation of several turns. The same
// conversation gives the request size of turn 10 (read from the emulator's request log).
import pty from '@lydell/node-pty';

// CSI, OSC, two-byte escapes: what is left is the text a person sees (positions aside).
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>NOM78c]/g;
const strip = (s) => s.replace(ANSI, '');
const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * A full-screen TUI asks the terminal for the cursor position, its identity and colours; a real
 * terminal answers, and some programs wait for the answer. Answer like xterm does.
 */
function answerQueries(p, data) {
  if (data.includes('\x1b[6n')) p.write('\x1b[1;1R');
  if (data.includes('\x1b[c')) p.write('\x1b[?62;22c');
  if (data.includes('\x1b]10;?')) p.write('\x1b]10;rgb:ffff/ffff/ffff\x1b\\');
  if (data.includes('\x1b]11;?')) p.write('\x1b]11;rgb:0000/0000/0000\x1b\\');
}

function openPty(file, args, { cwd, env }) {
  const p = pty.spawn(file, args, { name: 'xterm-256color', cols: 120, rows: 40, cwd, env: { TERM: 'xterm-256color', ...env } });
  let raw = '';
  let lastDataAt = now();
  const waiters = new Set();
  let exited = false;
  p.onData((d) => {
    raw += d;
    lastDataAt = now();
    answerQueries(p, d);
    for (const w of [...waiters]) w(d);
  });
  p.onExit(() => {
    exited = true;
    for (const w of [...waiters]) w('');
  });
  /** Resolves with the time at which `test(textSince)` first holds; rejects on timeout or exit. */
  const until = (since, test, timeoutMs, what) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (test(raw.slice(since))) {
          done();
          resolve(now());
        } else if (exited) {
          done();
          reject(new Error(`exited while waiting for ${what}; screen:\n${strip(raw).slice(-800)}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}; screen:\n${strip(raw).slice(-800)}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  /** Waits until nothing was drawn for `quietMs`. */
  const quiet = async (quietMs) => {
    while (now() - lastDataAt < quietMs) await new Promise((r) => setTimeout(r, quietMs - (now() - lastDataAt) + 5));
  };
  return {
    p,
    mark: () => raw.length,
    until,
    quiet,
    screen: () => strip(raw),
    close() {
      if (exited) return;
      // the pty starts the program as a session leader: end its whole group (only what we started).
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        p.kill('SIGKILL');
      }
    },
  };
}

/**
 * Process start to a ready prompt in a pty: spawn → the `ready` pattern on screen, `runs` times,
 * each in a fresh process (what a person waits for every time they type `agentx`).
 */
export async function measureStart({ file, args, cwd, env, ready, runs }) {
  const startMs = [];
  for (let i = 0; i < runs; i++) {
    const t0 = now();
    const t = openPty(file, args, { cwd, env });
    try {
      const seen = await t.until(0, (s) => ready.test(strip(s)), 30_000, 'the prompt');
      startMs.push(seen - t0);
    } finally {
      t.close();
    }
    // Let the killed process go before the next start, so runs do not overlap.
    await new Promise((r) => setTimeout(r, 50));
  }
  return startMs;
}

/**
 * One conversation of `turns` turns. Each message is typed one key at a time (each letter's echo
 * timed), then Enter; first-token render is Enter → the first model output on screen (reasoning
 * summary or answer text of the emulator's default brain). Turns before `warmup` are not counted.
 */
/** @param {{ file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, ready: RegExp, turns?: number, warmup?: number, onTurn?: (n: number) => void }} how */
export async function driveConversation({ file, args, cwd, env, ready, turns = 18, warmup = 3, onTurn }) {
  const t = openPty(file, args, { cwd, env });
  const echoMs = [];
  const firstTokenMs = [];
  try {
    await t.until(0, (s) => ready.test(strip(s)), 30_000, 'the prompt');
    await t.quiet(400);
    for (let n = 1; n <= turns; n++) {
      const message = `turn ${n}: hello`;
      for (const ch of message) {
        const at = t.mark();
        const t0 = now();
        t.p.write(ch);
        // A space may be drawn as a cursor move: any output counts as its echo, but only letters are timed.
        const seen = await t.until(at, (s) => (ch === ' ' ? s.length > 0 : s.includes(ch)), 5_000, `the echo of ${JSON.stringify(ch)}`);
        if (n > warmup && ch !== ' ') echoMs.push(seen - t0);
      }
      await t.quiet(30);
      const at = t.mark();
      const t0 = now();
      t.p.write('\r');
      // A TUI places text with cursor moves, so match with all whitespace removed.
      const answer = new RegExp(`said:turn${n}(?!\\d)`);
      const seen = (s) => strip(s).replace(/\s+/g, '');
      const first = await t.until(
        at,
        (s) => {
          const v = seen(s);
          return v.includes('Thinkingabout') || answer.test(v);
        },
        30_000,
        `the first token of turn ${n}`,
      );
      if (n > warmup) firstTokenMs.push(first - t0);
      await t.until(at, (s) => answer.test(seen(s)), 30_000, `the answer of turn ${n}`);
      await t.quiet(300);
      onTurn?.(n);
    }
    return { echoMs, firstTokenMs };
  } finally {
    t.close();
  }
}
