// `npm run fault`: builds the CLI, runs the fault suite at full size (FAULT_FULL=1) and updates
// RELIABILITY.md from the per-check reports the tests leave in FAULT_REPORT_DIR: only the checks
// that ran are rewritten (lib/report-doc.mjs), so a filtered run keeps the others' sections. Exits non-zero
// when a test failed, a check recorded a failure, or a check did not report at all.
// Knobs: FAULT_SEED (replay), FAULT_RUNS (crash-fuzz kills), FAULT_LANES, FAULT_SOAK_ROUNDS,
// FAULT_SOAK_ONESHOTS, FAULT_PROP_RUNS, and those of the fault-style tests beside the code that
// test/fault/vitest.config.ts adds (FAULT_RESTORE_KILLS, FAULT_SNAPSHOT_ROUNDS, FAULT_COMPACTION_TURNS,
// FAULT_SESSION_ONESHOTS…); extra arguments go to vitest (e.g. a file filter).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { mergeReport } from './lib/report-doc.mjs';

const repo = resolve(import.meta.dirname, '../..');
const started = Date.now();
const expected = [
  '1-crash',
  '2-concurrency',
  '3a-malformed-props',
  '3b-malformed-cli',
  '4-secrets',
  '5-log',
  '6-rollback-replay',
  '7-trust-boundary',
  '8-log-prune',
];

const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repo, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const reportDir = mkdtempSync(join(tmpdir(), 'agentx-fault-report-'));
const vitest = spawnSync(
  process.execPath,
  [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/fault/vitest.config.ts', ...process.argv.slice(2)],
  { cwd: repo, stdio: 'inherit', env: { ...process.env, FAULT_FULL: '1', FAULT_REPORT_DIR: reportDir } },
);
const totalMs = Date.now() - started;

const reports = readdirSync(reportDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(reportDir, f), 'utf8')))
  .sort((a, b) => a.id.localeCompare(b.id));
rmSync(reportDir, { recursive: true, force: true });
const missing = process.argv.length > 2 ? [] : expected.filter((id) => !reports.some((r) => r.id === id));

const minutes = (ms) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);
const failures = reports.reduce((n, r) => n + r.failures.length, 0);

const WHAT = {
  '1-crash':
    'Interactive and one-shot turns whose tool commands append a token unique to each call to a ledger file are SIGKILLed at a random moment: while the server has not answered, while text streams, while a command runs, inside a state write (aimed at the moment a temp file of agentx appears), while a request fails, or at the idle prompt; some are killed again while the chosen recovery runs. After every kill: no command outlives agentx; every state, one-shot and checkpoint file is complete JSON that agentx reads back without warnings, and nothing is moved aside as corrupt; history and checkpoint hold only responses that completed and asked for no tools; no ledger token appears twice unless Retry was chosen for a call journaled `started`; the unanswered message is in the input history. agentx is then restarted and every menu it shows is answered, each choice in turn; the unanswered message must be offered again (named by the menu, or recalled with ↑). A killed one-shot keeps its isolated file with the message, and the interactive files stay byte-identical.',
  '2-concurrency':
    'Rounds of one-shots started at the same moment beside a live REPL that keeps taking turns until the round is over. The main state and the checkpoint are sampled throughout and must only ever point at REPL turns; each one-shot must exit 0, branch from a REPL checkpoint and leave no isolated or temp file; each one-shot command runs exactly once; the lock names only the REPL and is gone after quit.',
  '3a-malformed-props':
    'fast-check properties over state text (truncated, byte-flipped, random, wrong types in every field, odd literals), state files on disk, checkpoint text, argv vectors and config files: readers never throw, a refusal is one line, a refused state file is moved aside byte for byte, and whatever is accepted saves and reads back identically.',
  '3b-malformed-cli':
    'Hand-picked malformed input through the built CLI: state files for the REPL (truncated, random bytes, wrong types, 100 000 levels deep, 50 MB, BOM, legacy and AgentX CLI formats, newer version, symlinks inside and outside the directory, dangling link, directory, FIFO, owned by another user), checkpoints for one-shots (same families), config files (random bytes, BOM, CRLF, directory, FIFO, bad values, 10 MB), bad flags, and malformed server answers (bad JSON in SSE, unknown events, missing or mistyped usage, invalid tool arguments, unknown tool, call without commands or call_id, broken completions, HTML error page, JSON instead of SSE, empty stream, [DONE] only, error events, 2 MB delta, binary garbage, a frame cut in half). Each must give one clear line, keep the original file, show no stack trace and leave agentx working.',
  '5-log':
    'One-shots against a server that forgets the chain right after the command ran (every turn is replayed from the conversation log), about a third against a server that stores nothing (some with AGENTX_STORE=off), SIGKILLed at a random moment (20–700 ms: before the answer, while the command runs, while the log is appended, while the replay is sent) or left to finish. After every run: the log reads back with at most one damaged (torn) record per kill; no ledger token ran twice; at the end every finished turn replays whole from the log (its message, the call, its output and the answer) and a new one-shot works.',
  '6-rollback-replay':
    'One REPL session in a real pty takes turns whose command appends a token unique to the call to a ledger (outside the workspace, so a rollback cannot restore it away), against a server that forgets the chain right after the command ran (every turn is replayed from the conversation log), and runs /rollback between them; at a random moment of a turn (20–900 ms) or of a /rollback (0–250 ms) it is SIGKILLed, restarted, and every menu answered with its default (Continue: nothing runs again). After every run: the session files are complete and read back cleanly, the state points at a response the server gave, the log has at most one damaged record per kill, no token ran twice; at the end the REPL still answers.',
  '7-trust-boundary':
    "Hostile neighbours of the sandbox (issue 23), real bwrap through the engine's command runner, each round: a Unix socket server outside in a tmux-like directory of the temp dir (`/tmp/tmux-<uid>-…/default`) that counts connections, reached from inside with Python and Node clients; a real tmux server (when tmux is installed) asked to `run-shell` from inside, with TMUX/STY set; a command renaming the parent of a hidden path (HOME under the temp dir: ~/.cache, ~/.local, HOME itself) and planting it anew; apply_patch racing a neighbour process that flips a directory to a symlink to outside (decoys outside carry a secret line); a file restore (rollback) racing the same neighbour (decoys outside carry the content a delete expects); forged escape sequences (OSC 52 clipboard, title, screen clear, same-colour 30;40 text, a bidi override, an 8-bit CSI) in a command's output as the REPL shows it, and in an MCP server's stderr as its notice shows it. Counted: connections the server outside got, tmux commands that ran outside, replants that succeeded, patches that read, wrote or left a temp file outside or reported untruthfully, restores that wrote or deleted outside, failed as a whole or left a temp file, forged sequences left on the screen — each must be 0.",
  '4-secrets':
    'A unique API key per sandbox; one-shots with --debug and --json, failures whose error bodies echo the key (401, 500, response.failed, SSE error), a model command running `env`, a REPL session keyed through setup (hidden typing, `!env`, a 403 echoing the key), `agentx setup --api-key`; untrusted checkpoint and state files (owned by uid 4242, symlinks out of the directory); MCP servers (issue 23 §4): one reporting its environment to the model and one quoting the key on stderr (both given it by the person’s own file), and an approved project `.mcp.json` using `${AGENTX_API_KEY}` in env and in headers (refused in one line each). Every file of every sandbox, every output stream, the pty screens and every request body are grepped for the key; every file agentx wrote is checked for mode 0600 (logs dir 0700) under umask 000.',
};

const intro = [
  '# Reliability report',
  '',
  'Written by `npm run fault` (test/fault/run.mjs): each promise of SPEC §3 (session state) and §6 (security)',
  'gets a check that tries to break it, at full size. `npm test` runs the same checks with a few iterations each.',
  'A run rewrites the rows and sections of the checks it ran; the others stay as their last run left them.',
  'Power loss is not what these checks simulate (SIGKILL keeps the page cache); what a power loss can cost is written down in docs/state-files.md ("Power loss"): at most the output of the call before a `started` mark (one log fsync per batch of outputs), which then loads as `started` and never runs again without Retry — src/store/journal-outputs.test.ts tests it by truncating the log to what was synced.',
];
const runLines = [
  `- Last run: ${new Date().toISOString()}, Node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), checks ${reports.map((r) => r.id).join(', ') || 'none'}, total ${minutes(totalMs)} including the build.`,
  `- Result of that run: **${failures} failure${failures === 1 ? '' : 's'}**${vitest.status === 0 ? '' : ' — vitest reported failing tests'}${missing.length > 0 ? ` — checks that did not report: ${missing.join(', ')}` : ''}.`,
];
const header = ['| check | runs | what one run is | assertions | failures | time |', '|---|---:|---|---:|---:|---:|'];
const rows = new Map(
  reports.map((r) => [r.title, `| ${r.title} | ${r.runs} | ${r.unit} | ${r.counts.assertions ?? 0} | ${r.failures.length} | ${minutes(r.durationMs)} |`]),
);
const sections = reports.map((r) => {
  const lines = [`## ${r.title}`, ''];
  if (WHAT[r.id]) lines.push(WHAT[r.id], '');
  if (r.seed !== undefined && r.seed !== null) lines.push(`Seed ${r.seed} (replay with \`FAULT_SEED=${r.seed} npm run fault\`).`, '');
  const counts = Object.entries(r.counts)
    .filter(([k]) => k !== 'assertions')
    .sort(([a], [b]) => a.localeCompare(b));
  if (counts.length > 0) {
    lines.push('| count | n |', '|---|---:|');
    for (const [k, v] of counts) lines.push(`| ${k} | ${v} |`);
    lines.push('');
  }
  for (const n of r.notes) lines.push(`- ${n}`);
  if (r.notes.length > 0) lines.push('');
  lines.push(r.failures.length === 0 ? 'Failures: none.' : `Failures (${r.failures.length}):`);
  for (const f of r.failures.slice(0, 50)) lines.push(`- ${f}`);
  return { id: r.id, title: r.title, text: lines.join('\n') };
});
const docPath = join(repo, 'RELIABILITY.md');
const doc = mergeReport(existsSync(docPath) ? readFileSync(docPath, 'utf8') : '', {
  intro,
  runLines,
  header,
  rows,
  sections,
  defects: readFileSync(join(repo, 'test/fault/DEFECTS.md'), 'utf8'),
});
writeFileSync(docPath, doc);
process.stdout.write(`\nRELIABILITY.md updated: ${reports.length} checks, ${failures} failures, ${minutes(totalMs)}\n`);
process.exit(vitest.status === 0 && failures === 0 && missing.length === 0 ? 0 : 1);
