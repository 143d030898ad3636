// `node bench/state-io.mjs`: state bytes written and fsyncs per tool call and per turn (issue 22 §6),
// counted on the real engine, store and conversation log (bench/state-io.ts). Prints Markdown rows
// for BENCHMARKS.md with the machine and the date.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, bundleForBench } from './lib.mjs';

const dir = mkdtempSync(join(tmpdir(), 'agentx-bench-state-io-'));
try {
  const out = join(dir, 'state-io.mjs');
  await bundleForBench(out, { entry: join(REPO, 'bench/state-io.ts') });
  const { benchStateIo } = await import(out);
  const r = await benchStateIo();
  const n = r.tenCalls.calls;
  const per = (key, cls) => (r.tenCalls.io[key][cls] - r.noCalls.io[key][cls]) / n;
  const total = (t, key) => Object.values(t.io[key]).reduce((a, b) => a + b, 0);
  const kb = (b) => `${(b / 1024).toFixed(1)} KiB`;
  const line = (cells) => `| ${cells.join(' | ')} |`;
  console.log(`machine: ${hostname()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${new Date().toISOString()}`);
  console.log(
    `state file at the end of the session: ${r.stateFileBytes.toLocaleString('en')} B; after /rollback 3: ${r.rolledBackBytes.toLocaleString('en')} B`,
  );
  console.log(`state file while a failed follow-up of 10 × 32 KiB outputs waits for Retry: ${r.failedFollowUpBytes.toLocaleString('en')} B`);
  console.log(line(['', 'state file', 'checkpoint', 'conversation log', 'fsyncs (state / checkpoint / log / directory)']));
  console.log(line(['---', '---', '---', '---', '---']));
  for (const [name, t] of [
    ['turn without commands', r.noCalls],
    [`turn with ${n} commands`, r.tenCalls],
    [`turn with ${n} short commands, 32 KiB of output each`, r.tenLong],
  ]) {
    const f = t.io.fsyncs;
    console.log(
      line([
        name,
        `${kb(t.io.bytes.state)} in ${t.io.stateWrites} writes`,
        kb(t.io.bytes.checkpoint),
        kb(t.io.bytes.log),
        `${total(t, 'fsyncs')} (${f.state} / ${f.checkpoint} / ${f.log} / ${f.directory})`,
      ]),
    );
  }
  console.log(
    line([
      'per tool call',
      `${kb(per('bytes', 'state'))} in ${((r.tenCalls.io.stateWrites - r.noCalls.io.stateWrites) / n).toFixed(1)} writes`,
      kb(per('bytes', 'checkpoint')),
      kb(per('bytes', 'log')),
      `${((total(r.tenCalls, 'fsyncs') - total(r.noCalls, 'fsyncs')) / n).toFixed(1)} (${per('fsyncs', 'state').toFixed(1)} / ${per('fsyncs', 'checkpoint').toFixed(1)} / ${per('fsyncs', 'log').toFixed(1)} / ${per('fsyncs', 'directory').toFixed(1)})`,
    ]),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
