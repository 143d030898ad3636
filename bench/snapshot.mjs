// `npm run bench:snapshot` (issue 16): workspace snapshot time on a tree of 20,000 small files
// (first snapshot, and an incremental one after one file changed: target < 100 ms) and the store
// size after 20 turns each changing one file of a 50 MB tree (target: growth < 2× the changed
// bytes). Results into BENCHMARKS.md (its snapshot section) with machine and date.
// SNAPSHOT_BENCH_RUNS (default 15) incremental runs; the first snapshot is timed 3 times.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO, SNAPSHOT_SECTION, replaceSection, stats } from './lib.mjs';

const RUNS = Math.max(3, Number(process.env.SNAPSHOT_BENCH_RUNS ?? 15));
const log = (m) => process.stderr.write(`${m}\n`);
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-bench-snap-')));
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const ms = (v) => `${v.toFixed(1)} ms`;
const mb = (b) => `${(b / 2 ** 20).toFixed(2)} MiB`;
const spread = (s) => `median ${ms(s.median)} (p10–p90 ${ms(s.p10)}–${ms(s.p90)}, n=${s.n})`;

try {
  const out = join(scratch, 'snapshot-cases.mjs');
  await build({ entryPoints: [join(REPO, 'bench/snapshot-cases.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'warning' });
  const { benchSmallTree, benchStoreGrowth, lstatAll, makeSmallTree } = await import(out);
  const loadBefore = load();

  const small = join(scratch, 'small');
  mkdirSync(small);
  makeSmallTree(small, 200, 100);
  log('20,000-file tree: first and incremental snapshots…');
  const t = await benchSmallTree(small, join(scratch, 'state-small'), 3, RUNS);
  const first = stats(t.first);
  const incr = stats(t.incremental);
  const same = stats(t.unchanged);
  const lstat = stats(lstatAll(small, RUNS));

  log('50 MB tree, 20 turns changing one file…');
  const g = await benchStoreGrowth(join(scratch, 'big'), join(scratch, 'state-big'), 50 * 2 ** 20, 64 * 1024, 20);
  const growthDisk = g.after.disk - g.base.disk;
  const growthApparent = g.after.apparent - g.base.apparent;
  const turn = stats(g.turnMs);
  const loadAfter = load();

  const git = spawnSync('git', ['--version'], { encoding: 'utf8' }).stdout.trim();
  const fsType = spawnSync('df', ['-T', scratch], { encoding: 'utf8' }).stdout.trim().split('\n')[1]?.split(/\s+/)[1] ?? 'unknown';
  const verdict = (ok) => (ok ? '**met**' : '**NOT met**');
  const md = `## Workspace snapshots (file rollback)

Measured by \`npm run bench:snapshot\` (bench/snapshot.mjs) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.

Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Linux ${release()}, ${fsType} temp filesystem, Node ${process.version}, ${git}.
Load average before / after: ${loadBefore} / ${loadAfter} (the machine is shared: timings include that noise).

| case | result | target | verdict |
|---|---|---|---|
| first snapshot, ${t.files.toLocaleString('en')} small files (fresh store) | ${spread(first)} | report | reported |
| incremental snapshot after one file changed, same tree | ${spread(incr)} | < 100 ms | ${verdict(incr.median < 100)} |
| CPU time of one incremental snapshot (agentx + its git processes; load-independent) | ${ms(t.incrementalCpuMs)} (mean of ${incr.n}, 10 ms clock ticks) | report | reported |
| reference: one lstat() of each of the ${t.files.toLocaleString('en')} files, from Node | ${spread(lstat)} | report | reported |
| snapshot with nothing changed (reuses the previous id) | ${spread(same)} | report | reported |
| store of that ${t.files.toLocaleString('en')}-file project (${mb(t.tree.disk)} on disk, ${mb(t.tree.apparent)} of content), after the incremental runs | ${mb(t.loose.disk)} on disk as loose objects; ${mb(t.packed.disk)} after the first prune packed them | report | reported |
| store growth after 20 turns, each changing one ${g.fileBytes / 1024} KiB file of a ${mb(g.treeBytes)} tree (${g.files} files) | ${mb(growthDisk)} on disk (${mb(growthApparent)} apparent) for ${mb(g.changed)} changed = **${(growthDisk / g.changed).toFixed(2)}×** | < 2× the changed bytes | ${verdict(growthDisk < 2 * g.changed)} |
| store size after the first snapshot of that tree | ${mb(g.base.disk)} on disk | report | reported |
| one turn's two snapshots (before + after) on that tree | ${spread(turn)} | report | reported |

Notes:
- A snapshot is \`git ls-files -o -m -d\` against a private copy of the cached index (one walk of the tree, a stat per tracked
  file), \`git update-index\` of just the changed paths, \`write-tree\` (unchanged directories reuse their cached tree ids) and
  \`commit-tree\`; when the tree equals the newest snapshot's, that id is returned again without a commit.
- Growth is measured in allocated blocks of the project's store directory (loose objects, each at least one block), so it
  includes the new blob, the changed trees, the commits and the refs of both snapshots of every turn. The changed files are
  random bytes (incompressible): the worst case; source files compress, so real growth is smaller.
- The first snapshot hashes every file once; it runs before the first tool call that can write, in the first turn.
- The floor of any stat-cache snapshot is one stat of every file (the reference row: ${ms(lstat.median)} here, i.e.
  ${((lstat.median * 1000) / t.files).toFixed(1)} µs per file on this virtual machine). The incremental snapshot costs
  ${(incr.median / lstat.median).toFixed(1)}× that floor; the rest is four short git processes (ls-files, update-index,
  write-tree, commit-tree), each a process start on a shared 2-vCPU machine. ${incr.median < 100 ? 'Met, with little margin' : 'Not met'} here:
  the stat pass alone takes most of the 100 ms budget on this machine, and the result moves with the machine's load;
  a file watcher could skip the pass, at the price of trusting every change event.
`;
  const file = join(REPO, 'BENCHMARKS.md');
  writeFileSync(file, replaceSection(existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n', SNAPSHOT_SECTION, md));
  process.stdout.write(md);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
