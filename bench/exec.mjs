// `npm run bench:exec`: exec sessions (docs/exec-sessions.md). (1) Latency of an exec_command that
// finishes at once vs the shell tool's command runner, both sandboxed (workspace-write, bwrap),
// interleaved round by round, BENCH_RUNS rounds (default 30) after warm-up; target ≤ 1.2×.
// (2) agentx's RSS with 10 busy sessions (each printing as fast as it can) for 5 s, and with one
// session printing 1 GB. Writes its section of BENCHMARKS.md.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { cpus, hostname, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { bundleForBench, load, stats, writeBenchSection } from './lib.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 30));
const WARMUP = 5;
const log = (m) => process.stderr.write(`${m}\n`);
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-bench-exec-')));
try {
  const bundle = join(scratch, 'exec.mjs');
  await bundleForBench(bundle, {
    exports: [
      "export { createCommandRunner } from './src/tools/sandboxed.ts';",
      "export { createExecTools } from './src/tools/exec/exec-tool.ts';",
      "export { ExecManager } from './src/tools/exec/manager.ts';",
    ],
    external: ['@lydell/node-pty'],
  });
  const { createCommandRunner, createExecTools, ExecManager } = await import(bundle);
  const workspace = join(scratch, 'workspace');
  const home = join(scratch, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  const env = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/sh', LANG: 'C.UTF-8' };
  const runner = createCommandRunner({
    setting: { mode: 'workspace-write', offIfUnavailable: false, network: false },
    sessionDir: workspace,
    env,
    configFile: join(home, '.agentx'),
    secrets: ['sk-bench-not-a-key-0123'],
    platform: process.platform,
    notice: (m) => log(m),
  });
  const manager = new ExecManager({ graceMs: 300 });
  const [execTool] = createExecTools({ manager, launch: (c, cwd) => runner.sessionLaunch(c, cwd), redact: (t) => runner.redact(t) });
  const ctx = { cwd: workspace, workspaceRoot: workspace, signal: new AbortController().signal, retry: false, progress: () => {} };
  const execCall = async (cmd, extra = {}) => {
    const parsed = execTool.parse({ type: 'function_call', call_id: 'b', name: 'exec_command', arguments: JSON.stringify({ cmd, ...extra }) });
    return (await execTool.run(parsed.call, ctx)).output.output;
  };
  const cases = [
    {
      name: 'shell tool runner: `true` (bwrap)',
      run: async () => {
        await runner.run({ command: 'true', cwd: workspace, timeoutMs: 30_000, maxOutputBytes: 4096 });
      },
    },
    {
      name: 'exec_command: `true` (bwrap)',
      run: async () => {
        const out = await execCall('true');
        if (!out.includes('exited with code 0')) throw new Error(out);
      },
    },
  ];
  const once = async (run) => {
    const t0 = process.hrtime.bigint();
    await run();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const loadBefore = load();
  const samples = cases.map(() => /** @type {number[]} */ ([]));
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (let k = 0; k < cases.length; k++) {
      const c = (i + k) % cases.length;
      const ms = await once(cases[c].run);
      if (i >= WARMUP) samples[c].push(ms);
    }
    process.stderr.write(`\r  round ${i + 1}/${WARMUP + RUNS}   `);
  }
  process.stderr.write('\n');
  const ratios = samples[1].map((ms, i) => ms / samples[0][i]);

  // RSS: sampled every 50 ms while sessions print.
  const peakDuring = async (work) => {
    let peak = process.memoryUsage().rss;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    try {
      await work();
    } finally {
      clearInterval(timer);
    }
    return Math.max(peak, process.memoryUsage().rss);
  };
  globalThis.gc?.();
  const rssIdle = process.memoryUsage().rss;
  const rssBusy = await peakDuring(async () => {
    for (let i = 0; i < 10; i++) await execCall('yes "busy session output line"', { yield_time_ms: 250 });
    await new Promise((r) => setTimeout(r, 5_000));
    await manager.stopAll();
  });
  let floodOut = '';
  const floodStart = Date.now();
  const rssFlood = await peakDuring(async () => {
    floodOut = await execCall('head -c 1000000000 /dev/zero | tr "\\0" x; echo END', { yield_time_ms: 30_000 });
    const id = /session ID (\d+)/.exec(floodOut)?.[1];
    const poll = async (sid) => {
      for (;;) {
        const p = createExecTools({ manager, launch: () => null, redact: (t) => t })[1];
        const parsed = p.parse({
          type: 'function_call',
          call_id: 'p',
          name: 'write_stdin',
          arguments: JSON.stringify({ session_id: Number(sid), chars: '', yield_time_ms: 30_000 }),
        });
        floodOut = (await p.run(parsed.call, ctx)).output.output;
        if (!floodOut.includes('session ID')) return;
      }
    };
    if (id) await poll(id);
  });
  const floodSeconds = (Date.now() - floodStart) / 1000;
  globalThis.gc?.();
  const rssShellFlood = await peakDuring(async () => {
    await runner.run({ command: 'head -c 1000000000 /dev/zero | tr "\\0" x; echo END', cwd: workspace, timeoutMs: 120_000, maxOutputBytes: 64 * 1024 });
  });
  manager.killAllNow();
  if (!floodOut.includes('END')) throw new Error(`flood did not end: ${floodOut.slice(0, 300)}`);

  const fmt = (x) => x.toFixed(1);
  const mb = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  const cpu = cpus();
  const r = stats(ratios);
  writeBenchSection(
    'exec',
    [
      '# Exec sessions: latency and memory',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} by \`node bench/exec.mjs\` (BENCH_RUNS=${RUNS}, ${WARMUP} warm-up rounds).`,
      `Machine: ${hostname()}, ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${release()}, Node ${process.version}, uid ${process.getuid?.() ?? '?'}.`,
      `Load average before: ${loadBefore}, after: ${load()} (the machine is shared: read the ratio, not the absolute times).`,
      '',
      'Both cases are sandboxed (workspace-write, bwrap, seccomp filter, the session network namespace) and run `true`.',
      '',
      '| case | median ms | p10 | p90 | max |',
      '|---|---:|---:|---:|---:|',
      ...cases.map((c, i) => {
        const st = stats(samples[i]);
        return `| ${c.name} | ${fmt(st.median)} | ${fmt(st.p10)} | ${fmt(st.p90)} | ${fmt(st.max)} |`;
      }),
      `| **exec_command / shell tool, per round** | **${r.median.toFixed(2)}×** | ${r.p10.toFixed(2)}× | ${r.p90.toFixed(2)}× | ${r.max.toFixed(2)}× |`,
      '',
      'Target: ≤ 1.2× the shell tool.',
      '',
      '| memory (RSS of the process running the manager) | value |',
      '|---|---:|',
      `| idle, before the sessions | ${mb(rssIdle)} |`,
      `| peak with 10 busy sessions (\`yes\`, 5 s, unread) | ${mb(rssBusy)} |`,
      `| peak while one session prints 1 GB (read by polls, ${floodSeconds.toFixed(1)} s) | ${mb(rssFlood)} |`,
      `| for comparison: peak while the shell tool's runner collects 1 GB | ${mb(rssShellFlood)} |`,
      '',
      'Each session keeps at most 1 MiB between reads (head and tail), copied into fixed buffers (src/tools/exec/session-buffer.ts), and its pipe is read into one static 64 KiB buffer (src/tools/exec/pipes.ts): a flood allocates nothing per chunk, so memory grows neither with output nor with its rate.',
      "Before the static-buffer reads (Node's own child pipes allocate 64 KiB per read), on the same machine, 2026-12-04: 154.8 MiB with 10 busy sessions, 159.8 MiB during the 1 GB flood. A bare Node reading 10 × `yes` through its child pipes peaks 40 MiB above idle, through a static buffer 7 MiB.",
      "RSS never shrinks back within a process, so each peak includes the ones before it. The issue's < 150 MiB target is measured here on the bench process (which also holds esbuild's API), not on agentx itself.",
    ].join('\n'),
  );
  log(`median ratio ${r.median.toFixed(2)}×, busy ${mb(rssBusy)}, flood ${mb(rssFlood)}, shell flood ${mb(rssShellFlood)}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
