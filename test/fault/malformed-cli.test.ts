// Malformed input, hand-picked, through the built CLI (issue 8): damaged, hostile or odd state
// and checkpoint files, config files, flags, and malformed server answers. Each must give a
// clear one-line message, keep the original file, show no stack trace, and leave agentx working.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../emulator/wire.ts';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox, storedResponse, type Sandbox } from '../e2e/harness.ts';
import { spawnAgentx, type PtyRun } from '../e2e/pty.ts';
import { parseState } from '../../src/store/state.ts';
import { sealedAsAgentx } from '../support/seal.ts';
import { FULL, Tally } from './lib/env.ts';
import { hasStackTrace, isolatedFiles, readIf } from './lib/checks.ts';

const PROMPT = /\S+@\S+:\S*> /;
const canChown = typeof process.getuid === 'function' && process.getuid() === 0;
const tally = new Tally('3b-malformed-cli', 'Malformed input, hand-picked, through the CLI', 'malformed input given to the built agentx');

let emu: Emulator;
let head = '';
const running: PtyRun[] = [];
beforeAll(async () => {
  emu = await startEmulator();
  head = await storedResponse(emu, 'an earlier turn');
});
afterAll(async () => {
  for (const a of running) a.kill();
  await emu.close();
  tally.save();
});

/** Runs the short subset in `npm test`, everything in `npm run fault`. */
function select<T extends { short?: boolean }>(cases: T[]): T[] {
  return FULL ? cases : cases.filter((c) => c.short === true);
}

function firstPrevious(n: number): string | undefined {
  return (emu.requests[n]?.body as { previous_response_id?: string } | undefined)?.previous_response_id;
}

const validState = (extra: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ version: 1, response_id: head, usage: { inputTokens: 9, cachedTokens: 0, outputTokens: 3, reasoningTokens: 0, turns: 1 }, last_user_message: 'an earlier turn', ...extra }, null, 2)}\n`;
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const randomBytes = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7919 + 13) % 256));

type Outcome =
  /** Moved aside to .corrupt-<time>, byte for byte; a fresh session starts. */
  | 'moved'
  /** Used, malformed fields reset with a notice; their raw values kept under invalid_fields. */
  | 'reset'
  /** Used as it is (older formats, BOM): the session resumes the chain. */
  | 'resumed'
  /** Not used and not changed (foreign, not a file): in memory only, the file stays as it was. */
  | 'untouched'
  /** A link that is not followed: fresh session; the save replaces the link, never its target. */
  | 'link-replaced'
  /** Over the size limit: trimmed (least valuable parts first) and resumed, never moved aside. */
  | 'trimmed';

interface FileCase {
  name: string;
  short?: boolean;
  /** Creates the file at `path` (in `dir`); `sealed` seals JSON text as agentx would (store/seal.ts). */
  make: (path: string, dir: string, sealed: (json: string) => string) => void;
  outcome: Outcome;
  notice?: RegExp;
}

const STATE_CASES: FileCase[] = [
  {
    name: 'truncated JSON',
    short: true,
    make: (p) => writeFileSync(p, validState().slice(0, 60)),
    outcome: 'moved',
    notice: /invalid JSON \(truncated or corrupted\)/,
  },
  { name: 'random bytes', make: (p) => writeFileSync(p, randomBytes), outcome: 'moved', notice: /binary data|not JSON/ },
  { name: 'an array instead of an object', make: (p) => writeFileSync(p, '[1, 2, 3]\n'), outcome: 'moved', notice: /expected a JSON object, found an array/ },
  {
    name: 'response_id of the wrong type',
    make: (p) => writeFileSync(p, '{"version":1,"response_id":42}'),
    outcome: 'moved',
    notice: /response_id is not a valid response id/,
  },
  {
    name: 'fields of the wrong types',
    short: true,
    outcome: 'reset',
    notice: /reset invalid usage, pending_tool_calls, history, transcript/,
    // Sealed: a file agentx wrote (an older version's bug); an unsealed one would give only its response id.
    make: (p, _d, sealed) => writeFileSync(p, sealed(validState({ usage: [1], history: 'yesterday', pending_tool_calls: { a: 1 }, transcript: 5 }))),
  },
  {
    name: 'nested 100 000 levels deep',
    short: true,
    make: (p) => writeFileSync(p, `{"version":1,"response_id":"${head}","x":${nested(100_000)}}`),
    outcome: 'moved',
    notice: /nested more than 100 levels deep/,
  },
  {
    name: '50 MB',
    make: (p, _d, sealed) => writeFileSync(p, sealed(validState({ padding: 'x'.repeat(50 * 1024 * 1024) }))),
    outcome: 'trimmed',
    notice: /was 50\.0 MiB, over the 20\.0 MiB limit: trimmed large unknown fields and kept the session/,
  },
  { name: 'a byte-order mark', make: (p) => writeFileSync(p, `\uFEFF${validState()}`), outcome: 'resumed' },
  { name: 'empty', make: (p) => writeFileSync(p, ''), outcome: 'moved', notice: /file is empty/ },
  {
    name: 'a plain response id (legacy)',
    make: (p) => writeFileSync(p, `${head}\n`),
    outcome: 'resumed',
    notice: /carries no agentx seal .*continuing its conversation only/,
  },
  {
    name: 'the AgentX CLI format',
    outcome: 'resumed',
    notice: /carries no agentx seal .*continuing its conversation only/,
    make: (p) =>
      writeFileSync(
        p,
        JSON.stringify({
          response_id: head,
          usage: { inputTokens: 3, cachedTokens: 1, outputTokens: 2, turns: 1 },
          pending_cli_transcript: '',
          failed_response: false,
          execution_journal: [],
        }),
      ),
  },
  {
    name: 'a newer format version',
    make: (p) => writeFileSync(p, '{"version":7,"response_id":"resp_x"}'),
    outcome: 'moved',
    notice: /written by a newer agentx \(format version 7\)/,
  },
  {
    name: 'unknown fields (kept on rewrite)',
    make: (p, _d, sealed) => writeFileSync(p, sealed(validState({ from_the_future: { a: [1, 2] } }))),
    outcome: 'resumed',
  },
  {
    name: 'a symlink to another state file in the directory',
    outcome: 'resumed',
    make: (p, dir) => {
      writeFileSync(join(dir, 'other-state.json'), validState());
      symlinkSync('other-state.json', p);
    },
  },
  {
    name: 'a symlink to a non-state file in the directory',
    short: true,
    outcome: 'moved',
    notice: /not JSON and not a response id/,
    make: (p, dir) => {
      writeFileSync(join(dir, 'README'), 'hello\n');
      symlinkSync('README', p);
    },
  },
  { name: 'a symlink to nothing', make: (p) => symlinkSync('does-not-exist', p), outcome: 'link-replaced', notice: /is a symlink to nothing/ },
  {
    name: 'a symlink to a file outside the directory',
    outcome: 'link-replaced',
    notice: /symlink pointing outside this directory/,
    make: (p, dir) => {
      writeFileSync(join(dir, '..', 'elsewhere.json'), validState());
      symlinkSync(join(dir, '..', 'elsewhere.json'), p);
    },
  },
  { name: 'a directory', make: (p) => mkdirSync(p), outcome: 'untouched', notice: /is not a regular file/ },
  { name: 'a FIFO', make: (p) => execFileSync('mkfifo', [p]), outcome: 'untouched', notice: /is not a regular file/ },
  ...(canChown
    ? [
        {
          name: 'owned by another user',
          short: true,
          outcome: 'untouched' as const,
          notice: /is owned by another user \(uid 4242\)/,
          make: (p: string) => {
            writeFileSync(p, validState());
            chownSync(p, 4242, 4242);
          },
        },
      ]
    : []),
];

/** A snapshot of what is at `path` (content, or a link's target, or the kind of file). */
function snapshot(path: string): string {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return `link:${readFileSync(path, 'utf8').length}`;
    if (st.isFile()) return `file:${st.uid}:${readFileSync(path).toString('base64')}`;
    return `other:${st.mode}`;
  } catch {
    return 'absent';
  }
}

async function turn(a: PtyRun, message: string): Promise<void> {
  a.line(message);
  await a.waitFor(`You said: ${message}`, 30_000);
  await a.waitFor(PROMPT, 30_000);
}

describe('state files, at the start of an interactive session', () => {
  for (const c of select(STATE_CASES)) {
    it(c.name, async () => {
      const failuresBefore = tally.failures.length;
      tally.runs++;
      tally.count('state files');
      const sb = sandbox(emu.baseUrl);
      const path = join(sb.cwd, '.agentx_responseid');
      c.make(path, sb.cwd, (json) => sealedAsAgentx(sb, path, json));
      const before = lstatSync(path).isFile() ? readFileSync(path) : undefined;
      const targetBefore = lstatSync(path).isSymbolicLink() && existsSync(path) ? readFileSync(path) : undefined;
      const a = spawnAgentx(sb);
      running.push(a);
      await a.waitFor(PROMPT, 30_000);
      const screen = a.screen();
      if (c.notice) {
        // One line: the whole notice, from ⚠ to its last word, holds no line break.
        const line = /⚠ ([^\n]*)/.exec(screen)?.[1] ?? '';
        tally.expect(
          `${c.name}: one-line notice`,
          c.notice.test(line) && /(?:session|memory only|saved|current one|invalid_fields\)|not used)\.$/.test(line.trim()),
          line || screen.slice(-400),
        );
      }
      const n = emu.requests.length;
      await turn(a, `after ${c.name.replace(/\W+/g, '-')}`);
      const prev = firstPrevious(n);
      const resumes = c.outcome === 'resumed' || c.outcome === 'reset' || c.outcome === 'trimmed';
      tally.expect(`${c.name}: ${resumes ? 'resumes the chain' : 'starts a fresh chain'}`, resumes ? prev === head : prev === undefined, String(prev));
      a.line('quit');
      const exit = await a.exited;
      tally.expect(`${c.name}: quits cleanly`, exit.exitCode === 0, String(exit.exitCode));
      tally.expect(`${c.name}: no stack trace`, !hasStackTrace(a.screen()), a.screen().slice(-400));
      const aside = readdirSync(sb.cwd).filter((f) => f.includes('.corrupt-'));
      if (c.outcome === 'moved') {
        tally.expect(`${c.name}: moved aside once`, aside.length === 1, aside.join(', '));
        const kept = aside[0] === undefined ? undefined : lstatSync(join(sb.cwd, aside[0])).isSymbolicLink() ? 'link' : readFileSync(join(sb.cwd, aside[0]));
        tally.expect(
          `${c.name}: the original is kept byte for byte`,
          kept === 'link' || (before !== undefined && kept instanceof Buffer && kept.equals(before)),
        );
      } else {
        tally.expect(`${c.name}: nothing moved aside`, aside.length === 0, aside.join(', '));
      }
      if (c.outcome === 'untouched') {
        tally.expect(
          `${c.name}: left exactly as it was`,
          before === undefined ? !lstatSync(path).isFile() : snapshot(path) === `file:4242:${before.toString('base64')}`,
        );
      } else {
        const saved = parseState(readFileSync(path, 'utf8'));
        tally.expect(`${c.name}: the session is saved again`, !lstatSync(path).isSymbolicLink() && saved.ok && saved.state.usage.turns >= 1);
        if (c.outcome === 'reset')
          tally.expect(
            `${c.name}: the reset values are kept`,
            readFileSync(path, 'utf8').includes('"invalid_fields"') && readFileSync(path, 'utf8').includes('yesterday'),
          );
        if (c.name.startsWith('unknown fields'))
          tally.expect(`${c.name}: unknown fields survive the rewrite`, readFileSync(path, 'utf8').includes('from_the_future'));
      }
      if (targetBefore !== undefined) {
        const target = c.name.includes('outside')
          ? join(sb.cwd, '..', 'elsewhere.json')
          : join(sb.cwd, c.name.includes('non-state') ? 'README' : 'other-state.json');
        tally.expect(`${c.name}: the link target is untouched`, readFileSync(target).equals(targetBefore));
      }
      expect(tally.failures.slice(failuresBefore)).toEqual([]);
    }, 60_000);
  }
});

/** What a one-shot says of a checkpoint without agentx's seal (an older agentx, the AgentX CLI, an editor). */
const UNSEALED_CHECKPOINT = /carries no agentx seal .*continuing from its response only/;

const CHECKPOINT_CASES: (FileCase & { chains?: boolean })[] = [
  {
    name: 'truncated JSON',
    short: true,
    make: (p) => writeFileSync(p, `{"version":1,"response_id":"${head}","tim`),
    outcome: 'untouched',
    notice: /could not be used \(invalid JSON/,
  },
  { name: 'random bytes', make: (p) => writeFileSync(p, randomBytes), outcome: 'untouched', notice: /could not be used/ },
  {
    name: 'wrong types',
    make: (p) => writeFileSync(p, '{"version":1,"response_id":["x"],"usage":"lots"}'),
    outcome: 'untouched',
    notice: /no valid response_id/,
  },
  {
    name: 'nested 100 000 levels deep',
    make: (p) => writeFileSync(p, `{"version":1,"response_id":"${head}","usage":${nested(100_000)}}`),
    outcome: 'untouched',
    chains: true,
    notice: UNSEALED_CHECKPOINT,
  },
  {
    name: '50 MB',
    make: (p) => writeFileSync(p, `{"version":1,"response_id":"${head}","pad":"${'x'.repeat(50 * 1024 * 1024)}"}`),
    outcome: 'untouched',
    notice: /file is too large/,
  },
  {
    name: 'a byte-order mark',
    short: true,
    make: (p) => writeFileSync(p, `\uFEFF{"version":1,"response_id":"${head}"}`),
    outcome: 'untouched',
    chains: true,
    notice: UNSEALED_CHECKPOINT,
  },
  { name: 'a plain response id', make: (p) => writeFileSync(p, head), outcome: 'untouched', chains: true, notice: UNSEALED_CHECKPOINT },
  {
    name: 'the AgentX CLI state format',
    make: (p) => writeFileSync(p, JSON.stringify({ response_id: head, usage: { inputTokens: 1 } })),
    outcome: 'untouched',
    chains: true,
    notice: UNSEALED_CHECKPOINT,
  },
  { name: 'a directory', make: (p) => mkdirSync(p), outcome: 'untouched', notice: /is not a regular file: ignoring it/ },
  {
    name: 'a symlink to a file outside the directory',
    outcome: 'untouched',
    notice: /symlink pointing outside this directory: ignoring it/,
    make: (p, dir) => {
      writeFileSync(join(dir, '..', 'cp.json'), `{"version":1,"response_id":"${head}"}`);
      symlinkSync(join(dir, '..', 'cp.json'), p);
    },
  },
  ...(canChown
    ? [
        {
          name: 'owned by another user',
          short: true,
          outcome: 'untouched' as const,
          notice: /owned by another user \(uid 4242\): ignoring it/,
          make: (p: string) => {
            writeFileSync(p, `{"version":1,"response_id":"${head}"}`);
            chownSync(p, 4242, 4242);
          },
        },
      ]
    : []),
];

async function oneshot(sb: Sandbox, args: string[], name: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  tally.runs++;
  const r = await runCli(args, { cwd: sb.cwd, env: sb.env, timeoutMs: 60_000 });
  tally.expect(`${name}: no stack trace`, !hasStackTrace(r.stderr + r.stdout), r.stderr.slice(-400));
  return r;
}

describe('checkpoint files, read by one-shots', () => {
  for (const c of select(CHECKPOINT_CASES)) {
    it(c.name, async () => {
      const failuresBefore = tally.failures.length;
      tally.count('checkpoint files');
      const sb = sandbox(emu.baseUrl);
      const path = join(sb.cwd, '.agentx_checkpoint');
      c.make(path, sb.cwd, (json) => sealedAsAgentx(sb, path, json));
      const before = snapshot(path);
      const n = emu.requests.length;
      const r = await oneshot(sb, ['hello there'], c.name);
      tally.expect(`${c.name}: exit 0`, r.code === 0, `${r.code}: ${r.stderr}`);
      tally.expect(
        `${c.name}: ${c.chains ? 'branches from it' : 'starts a fresh chain'}`,
        c.chains ? firstPrevious(n) === head : firstPrevious(n) === undefined,
        String(firstPrevious(n)),
      );
      const notices = r.stderr.split('\n').filter((l) => l.includes('.agentx_checkpoint'));
      if (c.notice) tally.expect(`${c.name}: one notice line`, notices.length === 1 && c.notice.test(notices[0] ?? ''), r.stderr);
      else tally.expect(`${c.name}: no notice`, notices.length === 0, r.stderr);
      tally.expect(`${c.name}: the checkpoint is left as it was`, snapshot(path) === before);
      tally.expect(`${c.name}: the answer alone on stdout`, r.stdout.trim() === 'You said: hello there', r.stdout.slice(0, 200));
      expect(tally.failures.slice(failuresBefore)).toEqual([]);
    }, 60_000);
  }
});

interface ConfigCase {
  name: string;
  short?: boolean;
  make: (path: string) => void;
  keyInEnv: boolean;
  exit: number;
  message?: RegExp;
}

const CONFIG_CASES: ConfigCase[] = [
  { name: 'random bytes (ignored lines)', make: (p) => writeFileSync(p, randomBytes), keyInEnv: true, exit: 0 },
  {
    name: 'a byte-order mark before the key',
    short: true,
    make: (p) => writeFileSync(p, '\uFEFFAGENTX_API_KEY=sk-from-bom-config-0123\n'),
    keyInEnv: false,
    exit: 0,
  },
  {
    name: 'CRLF line endings and quotes',
    make: (p) => writeFileSync(p, 'AGENTX_MODEL="gpt-5"\r\nAGENTX_API_KEY=\'sk-crlf-0123456789\'\r\n'),
    keyInEnv: false,
    exit: 0,
  },
  { name: 'a directory', make: (p) => mkdirSync(p), keyInEnv: true, exit: 2, message: /config file .* is not a regular file/ },
  {
    name: 'a FIFO nobody writes to',
    short: true,
    make: (p) => execFileSync('mkfifo', [p]),
    keyInEnv: true,
    exit: 2,
    message: /config file .* is not a regular file/,
  },
  {
    name: 'an invalid reasoning effort',
    make: (p) => writeFileSync(p, 'AGENTX_REASONING_EFFORT=extreme\n'),
    keyInEnv: true,
    exit: 2,
    message: /AGENTX_REASONING_EFFORT in .*\.agentx: expected one of/,
  },
  {
    name: 'a base URL that is not a URL',
    make: (p) => writeFileSync(p, 'AGENTX_BASE_URL=not a url\n'),
    keyInEnv: false,
    exit: 2,
    message: /AGENTX_BASE_URL in .*\.agentx: not an http\(s\) URL: "not a url"/,
  },
  {
    name: 'a base URL agentx cannot speak',
    make: (p) => writeFileSync(p, 'AGENTX_BASE_URL=ftp://example.com/v1\n'),
    keyInEnv: true,
    exit: 2,
    message: /AGENTX_BASE_URL in .*\.agentx: not an http\(s\) URL: "ftp:\/\/example\.com\/v1"/,
  },
  {
    name: 'an API key with a line break in it',
    make: (p) => writeFileSync(p, 'AGENTX_API_KEY="sk-line-0123\\nbroken-4567"\n'),
    keyInEnv: false,
    exit: 2,
    message: /^agentx: AGENTX_API_KEY in .*\.agentx: contains a line break or another control character \(the key is not shown\)\n$/,
  },
  {
    name: 'an unknown shell tool',
    make: (p) => writeFileSync(p, 'AGENTX_SHELL_TOOL=teleport\n'),
    keyInEnv: true,
    exit: 2,
    message: /AGENTX_SHELL_TOOL in .*\.agentx: expected "builtin" or "function"/,
  },
  { name: '10 MB of comments', make: (p) => writeFileSync(p, `${'# filler line\n'.repeat(750_000)}AGENTX_MODEL=gpt-5\n`), keyInEnv: true, exit: 0 },
];

describe('config files', () => {
  for (const c of select(CONFIG_CASES)) {
    it(c.name, async () => {
      const failuresBefore = tally.failures.length;
      tally.count('config files');
      const sb = sandbox(emu.baseUrl);
      const path = join(sb.home, '.agentx');
      c.make(path);
      if (!c.keyInEnv) delete sb.env.AGENTX_API_KEY;
      if (c.name.includes('base URL')) delete sb.env.AGENTX_BASE_URL;
      const before = snapshot(path);
      const r = await oneshot(sb, ['hello there'], c.name);
      tally.expect(`${c.name}: exit ${c.exit}`, r.code === c.exit, `${r.code}: ${r.stderr}`);
      if (c.message) {
        tally.expect(`${c.name}: one clear line`, r.stderr.trim().split('\n').length === 1 && c.message.test(r.stderr), r.stderr);
      }
      tally.expect(`${c.name}: the config file is left as it was`, snapshot(path) === before);
      expect(tally.failures.slice(failuresBefore)).toEqual([]);
    }, 60_000);
  }
});

const BAD_FLAGS: { args: string[]; names: RegExp; short?: boolean }[] = [
  { args: ['--bogus', 'hi'], names: /unknown option --bogus/, short: true },
  { args: ['-Z', 'hi'], names: /unknown option -Z/ },
  { args: ['-qZ', 'hi'], names: /unknown option -Z/ },
  { args: ['hi', '--model'], names: /--model needs a value/ },
  { args: ['--base-url', 'ftp://example.com', 'hi'], names: /--base-url: not an http\(s\) URL/, short: true },
  { args: ['--base-url=not a url', 'hi'], names: /--base-url: not an http\(s\) URL/ },
  { args: ['--shell-tool', 'teleport', 'hi'], names: /--shell-tool: expected "builtin" or "function"/ },
  { args: ['--quiet=yes', 'hi'], names: /--quiet takes no value/ },
  { args: ['--api-key', 'sk-x', 'hi'], names: /--api-key is only accepted by `agentx setup`/ },
  { args: ['-C', '/nonexistent/dir', 'hi'], names: /--cwd: not a directory: \/nonexistent\/dir/, short: true },
  { args: ['--cwd', '/etc/hostname', 'hi'], names: /--cwd: not a directory/ },
  { args: ['--', '--json'], names: /^$/ },
  { args: ['--model', 'x'.repeat(100_000), '--bogus'], names: /unknown option --bogus/ },
];

describe('flags', () => {
  for (const f of select(BAD_FLAGS)) {
    it(f.args.join(' ').slice(0, 60), async () => {
      const failuresBefore = tally.failures.length;
      tally.count('flag vectors');
      const sb = sandbox(emu.baseUrl);
      const r = await oneshot(sb, f.args, `flags ${f.args.join(' ').slice(0, 40)}`);
      if (f.names.source === '^$') {
        // `--` ends the flags: the rest is the message.
        tally.expect('after --, flags are words of the message', r.code === 0 && r.stdout.includes('You said: --json'), r.stderr);
        expect(tally.failures.slice(failuresBefore)).toEqual([]);
        return;
      }
      tally.expect(`${f.args[0] ?? ''}: exit 2`, r.code === 2, String(r.code));
      const lines = r.stderr.trim().split('\n');
      tally.expect(
        `${f.args[0] ?? ''}: one line naming it, with the --help hint`,
        lines.length === 1 && f.names.test(lines[0] ?? '') && (lines[0] ?? '').includes('agentx --help'),
        r.stderr.slice(0, 300),
      );
      tally.expect(`${f.args[0] ?? ''}: nothing on stdout`, r.stdout === '');
      expect(tally.failures.slice(failuresBefore)).toEqual([]);
    }, 60_000);
  }
});

const frame = (type: string, data: Record<string, unknown> = {}): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 0, ...data })}\n\n`;
const created = frame('response.created', { response: { id: '{{id}}', object: 'response', status: 'in_progress', output: [] } });
const message = (text: string): Record<string, unknown> => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});
const usage = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15,
};
const completed = (output: unknown, extra: Record<string, unknown> = { usage }): string =>
  frame('response.completed', { response: { id: '{{id}}', object: 'response', status: 'completed', output, ...extra } });
/** Failing answers are queued twice: a one-shot retries a retryable failure once. */
const twice = (step: Step): Step[] => [step, step];
const raw = (body: string, more: Partial<Extract<Step, { kind: 'raw' }>> = {}): Step => ({ kind: 'raw', body, ...more });

interface ResponseCase {
  name: string;
  short?: boolean;
  /** Failing answers are queued twice: a one-shot retries a retryable failure once. */
  steps: Step[];
  exit: 0 | 1;
  stdout?: RegExp;
  /** With --json: usage fields must be numbers. */
  json?: boolean;
  /** What the follow-up request must carry (the answer to a broken tool call). */
  sent?: RegExp;
}

const RESPONSE_CASES: ResponseCase[] = [
  {
    name: 'bad JSON in an SSE frame',
    short: true,
    exit: 1,
    steps: twice(raw(`${created}event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"hi"\n\n`)),
  },
  {
    name: 'unknown event types around a good answer',
    short: true,
    exit: 0,
    stdout: /^fine\n$/,
    steps: [
      raw(
        `${created}${frame('response.brand_new_event', { x: 1 })}event: ping\ndata: {}\n\n: a comment\n\n${frame('response.output_text.delta', { delta: 'fine' })}${completed([message('fine')])}`,
      ),
    ],
  },
  {
    name: 'a completion without usage',
    short: true,
    exit: 0,
    stdout: /^no usage\n$/,
    steps: [raw(`${created}${frame('response.output_text.delta', { delta: 'no usage' })}${completed([message('no usage')], {})}`)],
  },
  {
    name: 'an answer only in the completion (no deltas)',
    exit: 0,
    stdout: /^not streamed\n$/,
    steps: [raw(`${created}${completed([message('not streamed')])}`)],
  },
  {
    name: 'usage of the wrong types',
    exit: 0,
    json: true,
    steps: [raw(`${created}${completed([message('odd usage')], { usage: { input_tokens: 'lots', output_tokens: null, input_tokens_details: 7 } })}`)],
  },
  {
    name: 'a tool call with invalid JSON arguments',
    short: true,
    exit: 0,
    stdout: /invalid JSON arguments/,
    steps: [{ kind: 'function', name: 'shell', arguments: '{"commands": ["echo hi"' }],
  },
  {
    name: 'a call of an unknown tool',
    exit: 0,
    stdout: /unknown tool "delete_everything"/,
    steps: [{ kind: 'function', name: 'delete_everything', arguments: '{}' }],
  },
  {
    name: 'a shell call without commands',
    exit: 0,
    sent: /"call_id":"call_nocmd".*the shell call has no commands/,
    steps: [raw(`${created}${completed([{ id: 'sh_1', type: 'shell_call', call_id: 'call_nocmd', status: 'completed', action: {} }])}`)],
  },
  {
    name: 'a tool call without a call_id',
    short: true,
    exit: 1,
    steps: twice(
      raw(`${created}${completed([{ id: 'fc_1', type: 'function_call', name: 'shell', arguments: '{"commands":["echo hi"]}', status: 'completed' }])}`),
    ),
  },
  { name: 'a completion without its response', exit: 1, steps: twice(raw(`${created}event: response.completed\ndata: {"type":"response.completed"}\n\n`)) },
  { name: 'output that is not a list', short: true, exit: 1, steps: twice(raw(`${created}${completed({ a: 1 })}`)) },
  {
    name: 'an HTML error page',
    short: true,
    exit: 1,
    steps: twice(raw('<html>\n<body><h1>502 Bad Gateway</h1>\n<p>nginx</p></body>\n</html>\n', { status: 502, contentType: 'text/html' })),
  },
  {
    name: 'a JSON body instead of a stream',
    exit: 1,
    steps: twice(
      raw(JSON.stringify({ id: '{{id}}', object: 'response', status: 'completed', output: [message('json')] }), { contentType: 'application/json' }),
    ),
  },
  { name: 'an empty stream', exit: 1, steps: twice(raw('')) },
  { name: 'only [DONE]', exit: 1, steps: twice(raw('data: [DONE]\n\n')) },
  { name: 'an SSE error event', exit: 1, steps: twice(raw(frame('error', { code: 'server_error', message: 'boom' }))) },
  {
    name: 'response.failed without an error',
    exit: 1,
    steps: twice(raw(`${created}${frame('response.failed', { response: { id: '{{id}}', status: 'failed' } })}`)),
  },
  {
    name: 'a 2 MB text delta',
    exit: 0,
    steps: [raw(`${created}${frame('response.output_text.delta', { delta: 'y'.repeat(2_000_000) })}${completed([message('y'.repeat(2_000_000))])}`)],
  },
  { name: 'a delta that is not text', exit: 0, steps: [raw(`${created}${frame('response.output_text.delta', { delta: 42 })}${completed([message('42')])}`)] },
  { name: 'binary garbage', exit: 1, steps: twice(raw('\u0000\u00ff\u0001 garbage \u0007\n\n')) },
  { name: 'cut in the middle of a frame', exit: 1, steps: twice(raw(`${created}event: response.output_text.delta\ndata: {"ty`, { cut: true })) },
];

describe('malformed server answers, to one-shots', () => {
  for (const c of select(RESPONSE_CASES)) {
    it(c.name, async () => {
      const failuresBefore = tally.failures.length;
      tally.count('malformed server answers');
      const sb = sandbox(emu.baseUrl);
      emu.clearQueue();
      emu.enqueue(...c.steps);
      const args = c.json ? ['--json', 'go'] : ['go'];
      const n = emu.requests.length;
      const r = await oneshot(sb, args, c.name);
      emu.clearQueue();
      if (c.sent) tally.expect(`${c.name}: the tool call is answered`, c.sent.test(JSON.stringify(emu.requests.slice(n).map((q) => q.body))));
      tally.expect(`${c.name}: exit ${c.exit}`, r.code === c.exit, `${r.code}: ${r.stderr.slice(-300)}`);
      const files = isolatedFiles(sb.cwd);
      if (c.exit === 1) {
        const failed = r.stderr.split('\n').filter((l) => l.startsWith('agentx: request failed: '));
        tally.expect(`${c.name}: one line says why`, failed.length === 1 && (failed[0] ?? '').length < 400, r.stderr.slice(-500));
        tally.notes.push(`${c.name} → \`${(failed[0] ?? '').slice(0, 160)}\``);
        const kept = files[0] === undefined ? undefined : parseState(readIf(join(sb.cwd, files[0])) ?? '');
        tally.expect(`${c.name}: the isolated file is kept and parses`, files.length === 1 && kept?.ok === true);
      } else {
        tally.expect(`${c.name}: no isolated file left`, files.length === 0, files.join(', '));
        if (c.stdout) tally.expect(`${c.name}: the answer`, c.stdout.test(r.stdout), r.stdout.slice(0, 300));
      }
      if (c.json) {
        const lines = r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        const u = lines.find((l) => l.type === 'usage');
        tally.expect(
          `${c.name}: usage numbers are numbers`,
          u !== undefined && ['input_tokens', 'cached_tokens', 'output_tokens', 'reasoning_tokens'].every((k) => Number.isFinite(u[k])),
          JSON.stringify(u),
        );
      }
      expect(tally.failures.slice(failuresBefore)).toEqual([]);
    }, 60_000);
  }
});
