// Bundled and run by bench/composer.mjs: what one keystroke costs inside agentx (reduce → frame →
// screen diff, the status line drawn) with an empty and a 100-line composer, and what the `@`
// finder costs over a git tree of N files (git ls-files, then ranking; and the time to the first
// ranked results while the list streams in). Prints one JSON object.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rankPaths } from '../src/frontends/repl/composer/fuzzy.ts';
import { parseKeys } from '../src/frontends/repl/composer/keys.ts';
import { listGitFiles } from '../src/frontends/repl/composer/project-files.ts';
import { reduce, type ComposerEnv } from '../src/frontends/repl/composer/reduce.ts';
import { EMPTY, withText, type ComposerState } from '../src/frontends/repl/composer/state.ts';
import { ComposerScreen } from '../src/frontends/repl/screen.ts';
import { composerFrame } from '../src/ui/composer-view.ts';
import { formatStatusLine } from '../src/ui/status-line.ts';
import { COLOR_THEME } from '../src/ui/theme.ts';

const FILES = Number(process.env.COMPOSER_FILES ?? 100_000);
const KEYS = Number(process.env.COMPOSER_KEYS ?? 2_000);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function summary(samples: number[]): { median: number; p90: number; p99: number; max: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), p90: quantile(s, 0.9), p99: quantile(s, 0.99), max: s.at(-1) ?? 0 };
}

/** Per key: the reducer, the frame with the status line, the screen's diff written to nowhere. */
function keystrokes(start: ComposerState): ReturnType<typeof summary> {
  const env: ComposerEnv = { history: [], pastes: new Map(), complete: (_t, cursor) => ({ start: cursor, candidates: [] }) };
  const screen = new ComposerScreen({ write: () => true });
  const status = (): string => formatStatusLine({ model: 'gpt-5.1', reasoningEffort: 'high', contextLeft: { fraction: 0.83, assumed: false }, sandbox: 'workspace-write', network: 'off', backgroundSessions: 1 }, 120, COLOR_THEME);
  let state = start;
  const samples: number[] = [];
  const key = parseKeys('x')[0];
  if (!key) throw new Error('no key');
  for (let i = 0; i < KEYS; i++) {
    const t0 = process.hrtime.bigint();
    state = reduce(state, key, env).state;
    screen.draw(composerFrame({ prompt: 'user@host:~/project> ', text: state.text, cursor: state.cursor, columns: 120, maxRows: 38, status: status(), theme: COLOR_THEME }));
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return summary(samples.slice(KEYS / 10));
}

function gitTree(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentx-composer-bench-'));
  // 100 directories of n/100 files, names like a source tree's.
  for (let d = 0; d < 100; d++) {
    const sub = join(dir, `src/module-${d}/parts`);
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < n / 100; f++) writeFileSync(join(sub, `component-${d}-${f}.ts`), '');
  }
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir, maxBuffer: 256 * 2 ** 20 });
  return dir;
}

/** Time from starting the listing to the first ranked results (the first part git hands on), and to the whole list. */
async function firstResults(dir: string): Promise<{ first: number; firstFiles: number; whole: number }> {
  const t0 = process.hrtime.bigint();
  let first = -1;
  let firstFiles = 0;
  await listGitFiles(dir, (files) => {
    if (first >= 0) return;
    rankPaths(files, 'cmp42pa', 8);
    first = Number(process.hrtime.bigint() - t0) / 1e6;
    firstFiles = files.length;
  });
  return { first, firstFiles, whole: Number(process.hrtime.bigint() - t0) / 1e6 };
}

async function finder(): Promise<Record<string, unknown>> {
  const dir = gitTree(FILES);
  try {
    const list: number[] = [];
    const rank: number[] = [];
    const first: number[] = [];
    const firstFiles: number[] = [];
    let files: string[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = process.hrtime.bigint();
      files = (await listGitFiles(dir)) ?? [];
      const t1 = process.hrtime.bigint();
      rankPaths(files, 'cmp42pa', 8);
      const t2 = process.hrtime.bigint();
      const f = await firstResults(dir);
      if (i >= 2) {
        list.push(Number(t1 - t0) / 1e6);
        rank.push(Number(t2 - t1) / 1e6);
        first.push(f.first);
        firstFiles.push(f.firstFiles);
      }
    }
    const perKey: number[] = [];
    for (const q of ['c', 'co', 'com', 'comp', 'compo', 'compon', 'compone', 'component-4', 'component-42', 'component-42-']) {
      const t0 = process.hrtime.bigint();
      rankPaths(files, q, 8);
      perKey.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return { files: files.length, list: summary(list), rank: summary(rank), first: summary(first), firstFiles: summary(firstFiles), perKey: summary(perKey) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const hundred = Array.from({ length: 100 }, (_, i) => `line ${i} of a long message, typed with Ctrl-J between the lines`).join('\n');
  const empty = keystrokes(EMPTY);
  const full = keystrokes(withText(EMPTY, hundred));
  const found = await finder();
  process.stdout.write(JSON.stringify({ keys: KEYS, empty, full, finder: found }));
}

void main();
