// Hostile neighbours of the sandbox (issue 23), many times over, each route with its counts: a
// Unix socket server outside (tmux-like, in the temp directory) and a real tmux server, a command
// renaming the parent of a hidden path and planting it anew, patches racing a directory flipped to
// a symlink, and forged escape sequences in command output and in an MCP server's stderr. Real
// bwrap through the engine's command runner, real sockets, real processes.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, it } from 'vitest';
import { createCommandRunner, type CommandRunnerSetup } from '../../src/tools/sandboxed.ts';
import type { ShellRunOptions } from '../../src/tools/shell.ts';
import { McpManager } from '../../src/tools/mcp/manager.ts';
import { OutputView } from '../../src/ui/output-view.ts';
import { sanitizeLines } from '../../src/ui/sanitize.ts';
import { makeLayout, TEST_KEY, type Layout } from '../support/sandbox.ts';
import { runPatchRace } from '../support/patch-race.ts';
import { runRestoreRace } from '../support/restore-race.ts';
import { stdioSpec } from '../mcp/helpers.ts';
import { iterations, Tally } from './lib/env.ts';

const RUNS = iterations('TRUST_RUNS', 1, 12);
const tally = new Tally(
  '7-trust-boundary',
  'Trust boundary: hostile neighbours of the sandbox',
  'each route tried once: sockets, replant, patch race, restore race, forged escapes',
);
const hasPython = spawnSync('python3', ['-c', '1']).status === 0;
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

afterAll(() => {
  const report = tally.save();
  process.stdout.write(`[fault 7-trust-boundary] ${report.runs} runs, ${JSON.stringify(report.counts)}, ${report.failures.length} failures\n`);
});

function runnerFor(box: Layout, more: Partial<CommandRunnerSetup> = {}) {
  return createCommandRunner({
    setting: { mode: 'workspace-write', offIfUnavailable: false, network: false },
    sessionDir: box.workspace,
    tempDir: box.tempDir,
    env: box.env,
    configFile: box.configFile,
    secrets: [TEST_KEY],
    platform: 'linux',
    notice: () => undefined,
    ...more,
  });
}

const opts = (box: Layout, command: string): ShellRunOptions => ({
  command,
  cwd: box.workspace,
  timeoutMs: 15_000,
  maxOutputBytes: 64 * 1024,
  killGraceMs: 300,
});

/** A server outside that counts the connections it gets. */
async function countingServer(path: string): Promise<{ server: Server; connections: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.end('hello from outside\n');
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { server, connections: () => n };
}

async function unixSockets(box: Layout): Promise<void> {
  // Where tmux and screen put theirs: a directory in the temp dir, not one agentx knows about.
  const dir = mkdtempSync(join(tmpdir(), `tmux-${process.getuid?.() ?? 0}-fault-`));
  const path = join(dir, 'default');
  const { server, connections } = await countingServer(path);
  try {
    const run = runnerFor(box);
    const clients = [
      ...(hasPython ? [`python3 -c 'import socket;s=socket.socket(socket.AF_UNIX);s.connect("${path}");print(s.recv(100).decode())'`] : []),
      `${process.execPath} -e "require('net').connect('${path}').on('data', d => process.stdout.write(d)).on('error', () => process.exit(3))"`,
    ];
    for (const line of clients) {
      tally.count('socket connects tried');
      const r = await run.run(opts(box, line));
      tally.count('socket connects refused', r.exitCode !== 0 && !r.stdout.includes('hello from outside') ? 1 : 0);
      tally.expect('no answer from the server outside reaches the command', !r.stdout.includes('hello from outside'), line);
    }
    tally.count('connections the server outside got', connections());
    tally.expect('the Unix socket server outside got no connection', connections() === 0, `${connections()} connections`);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function realTmux(box: Layout): Promise<void> {
  const sock = join(box.tempDir, 'tmux-fault.sock');
  const pwned = join(box.elsewhere, 'pwned');
  execFileSync('tmux', ['-S', sock, '-f', '/dev/null', 'new-session', '-d', 'sleep 60']);
  try {
    const run = runnerFor(box, { env: { ...box.env, TMUX: `${sock},1,0`, TMUX_PANE: '%0', STY: '1.pts-0.host' } });
    tally.count('tmux run-shell tried');
    await run.run(opts(box, `tmux -S ${sock} run-shell "touch ${pwned}"; tmux run-shell "touch ${pwned}"`));
    const ran = existsSync(pwned);
    tally.count('tmux run-shell ran outside', ran ? 1 : 0);
    tally.expect('tmux run-shell from inside did not run outside the sandbox', !ran);
  } finally {
    spawnSync('tmux', ['-S', sock, 'kill-server']);
  }
}

async function replant(box: Layout): Promise<void> {
  const home = join(box.tempDir, 'home');
  const cache = join(home, '.cache/agentx');
  const state = join(home, '.local/state/agentx');
  for (const d of [cache, state]) mkdirSync(d, { recursive: true });
  const run = runnerFor(box, { env: { ...box.env, HOME: home }, configFile: join(home, '.agentx') });
  const plant = (parent: string, hidden: string): string => `mv ${parent} ${parent}.moved && mkdir -p ${hidden} && echo planted > ${hidden}/planted`;
  for (const [parent, hidden] of [
    [join(home, '.cache'), cache],
    [join(home, '.local'), state],
    [home, cache],
  ] as const) {
    tally.count('rename-and-replant tried');
    await run.run(opts(box, plant(parent, hidden)));
    const moved = existsSync(`${parent}.moved`);
    const planted = existsSync(join(hidden, 'planted'));
    tally.count('rename-and-replant succeeded', moved || planted ? 1 : 0);
    tally.expect('a hidden path was not moved away and planted anew', !moved && !planted, `${parent} → ${hidden}`);
  }
  rmSync(home, { recursive: true, force: true });
}

async function patchRace(box: Layout): Promise<void> {
  const ws = join(box.root, `race-ws-${tally.runs}`);
  const outside = join(box.root, `race-outside-${tally.runs}`);
  mkdirSync(ws);
  mkdirSync(outside);
  const c = await runPatchRace(ws, outside, { rounds: 2, patches: 12 });
  tally.count('patches raced', c.patches);
  tally.count('directory swaps by the neighbour', c.swaps);
  tally.count('patches applied', c.applied);
  tally.count('patches refused', c.refused);
  for (const k of ['readOutside', 'touchedOutside', 'untruthful', 'tempLeft'] as const) {
    tally.count(`patch race: ${k}`, c[k]);
    tally.expect(`patch race: ${k} is 0`, c[k] === 0, String(c[k]));
  }
}

async function restoreRace(): Promise<void> {
  const c = await runRestoreRace({ rounds: 2 });
  tally.count('restores raced', c.rounds);
  tally.count('directory swaps by the neighbour (restores)', c.swaps);
  tally.count('files restored', c.restored);
  tally.count('files the restore refused', c.refused);
  for (const k of ['landedOutside', 'deletedOutside', 'crashed', 'tempLeft'] as const) {
    tally.count(`restore race: ${k}`, c[k]);
    tally.expect(`restore race: ${k} is 0`, c[k] === 0, String(c[k]));
  }
}

/** Escape sequences that are not plain colours (SGR), and C1 or bidi controls, in what reaches the terminal. */
function forged(text: string): number {
  const escapes = text.match(/\x1b(?!\[[0-9;]*m)|[\x07\x80-\x9f\u202a-\u202e\u2066-\u2069\u200b]/g) ?? [];
  return escapes.length + (text.includes('\x1b[30;40m') ? 1 : 0);
}

const FORGED = String.raw`printf '\033]52;c;cHduZWQ=\007\033]0;pwned\007\033[2J\033[H\033[30;40mhidden\033[0m All 42 tests passed\342\200\256txt.exe\n\302\2332J'`;

async function forgedOutput(box: Layout): Promise<void> {
  const r = await runnerFor(box).run(opts(box, FORGED));
  let shown = '';
  const view = new OutputView({
    write: (s) => {
      shown += s;
    },
    keepColors: true,
    width: 100,
    maxRows: Infinity,
  });
  view.push(r.stdout, 'stdout');
  view.end();
  tally.count('forged command outputs shown');
  const left = forged(shown);
  tally.count('forged sequences left in command output', left);
  tally.expect('command output reaches the terminal without forged sequences', left === 0, JSON.stringify(shown));
}

async function forgedMcpStderr(box: Layout): Promise<void> {
  const manager = await McpManager.start({
    specs: [stdioSpec('loud', ['loud'])],
    env: { ...process.env },
    secrets: [TEST_KEY],
    projectDir: box.workspace,
    startTimeoutMs: 30_000,
  });
  try {
    const error = manager.servers()[0]?.error ?? '';
    // What the REPL's notice sink prints (repl.ts: sanitizeLines), from the server's own stderr.
    const shown = sanitizeLines(error);
    tally.count('MCP stderr lines shown');
    const left = forged(shown);
    tally.count('forged sequences left in MCP stderr', left);
    tally.expect("an MCP server's stderr reaches the terminal without forged sequences", left === 0 && error.includes('fatal: loud'), JSON.stringify(shown));
  } finally {
    await manager.close();
  }
}

it(
  `holds against hostile neighbours, ${RUNS} rounds`,
  async () => {
    for (let run = 0; run < RUNS; run++) {
      tally.runs++;
      const box = makeLayout();
      try {
        await unixSockets(box);
        if (hasTmux) await realTmux(box);
        await replant(box);
        await patchRace(box);
        await restoreRace();
        await forgedOutput(box);
        if (run === 0) await forgedMcpStderr(box);
      } catch (err) {
        tally.fail(`round ${run} threw: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      } finally {
        box.remove();
      }
    }
    if (!hasTmux) tally.notes.push('tmux is not installed here: the real-tmux route was skipped');
    if (tally.failures.length > 0) throw new Error(`trust boundary: ${tally.failures.length} failures:\n${tally.failures.join('\n')}`);
  },
  10 * 60_000,
);
