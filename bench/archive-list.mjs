// `node bench/archive-list.mjs [rev]`: what drawing the /resume menu costs (issue 22 follow-up:
// listArchive reads each entry's own small fields instead of parsing each entry's whole state).
// Writes ARCHIVE_MAX entries of a realistic conversation (20 checkpoints, the local context, a
// journal) with the current code, then lists them with the current listArchive and with the one
// of `rev` (default main; its entries, lacking the small fields, are read the old way by both),
// side by side in the same process. Prints one Markdown table for BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, bundleForBench, fmt, x } from './lib.mjs';

const rev = process.argv[2] ?? 'main';
const dir = mkdtempSync(join(tmpdir(), 'agentx-bench-archive-'));
try {
  const { build } = await import('esbuild');
  // The old module is bundled from git's copy, resolved in src/store: nothing is written into src.
  const oldSource = execFileSync('git', ['show', `${rev}:src/store/session-archive.ts`], { cwd: REPO, encoding: 'utf8' });
  const oldOut = join(dir, 'old.mjs');
  await build({
    stdin: { contents: oldSource, resolveDir: join(REPO, 'src/store'), loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: oldOut,
    logLevel: 'error',
  });
  const newOut = await bundleForBench(join(dir, 'new.mjs'), {
    exports: [
      "export { ARCHIVE_MAX, archiveSession, listArchive, readArchivedState } from './src/store/session-archive.ts';",
      "export { useStateKey } from './src/store/seal.ts';",
      "export { emptyState, recordTurn } from './src/store/state.ts';",
    ],
  });
  const now = await import(newOut);
  const old = await import(oldOut);
  // Each bundle has its own copy of the seal module: both get the same key file.
  now.useStateKey(join(dir, 'state.key'));
  old.useStateKey?.(join(dir, 'state.key'));

  const usage = { inputTokens: 12_000, cachedTokens: 8_000, outputTokens: 900, reasoningTokens: 300 };
  const para = 'The parser drops the last token when the input ends without a newline; the fix moves the flush after the loop. '.repeat(6);
  let state = now.emptyState();
  for (let i = 0; i < 24; i++)
    state = now.recordTurn(state, {
      responseId: `resp_${i}_${'x'.repeat(40)}`,
      userMessage: `${i}: ${para}`,
      assistantMessage: para.repeat(3),
      usage,
      now: new Date(),
    });
  const archive = join(dir, 'sessions', 'project');
  for (let i = 0; i < now.ARCHIVE_MAX; i++) now.archiveSession(archive, state, new Date(Date.UTC(2026, 0, 1, 0, i)));

  /** Median of `runs` timings of `fn` (after one warm-up), in ms. */
  const median = (fn, runs = 15) => {
    fn();
    const times = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      fn();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  };
  const listedNew = now.listArchive(archive);
  const listedOld = old.listArchive(archive);
  if (listedNew.sessions.length !== now.ARCHIVE_MAX || listedOld.sessions.length !== now.ARCHIVE_MAX) throw new Error('not every entry was listed');
  const before = median(() => old.listArchive(archive));
  const after = median(() => now.listArchive(archive));
  const chosen = median(() => now.readArchivedState(listedNew.sessions[0]));
  console.log(`machine: ${hostname()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${new Date().toISOString()}`);
  console.log(`${now.ARCHIVE_MAX} entries of a 24-turn conversation (state ${JSON.stringify(state).length.toLocaleString('en')} B each); median of 15 runs`);
  console.log('| listing the /resume menu | time | ratio |');
  console.log('| --- | --- | --- |');
  console.log(`| ${rev}: every entry's state parsed | ${fmt(before)} | 1.00× |`);
  console.log(`| now: the entries' own fields | ${fmt(after)} | ${x(after / before)} |`);
  console.log(`| now, then the chosen one parsed whole | ${fmt(after + chosen)} | ${x((after + chosen) / before)} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
