// One-shot mode end to end: the built CLI against the emulator over real HTTP.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { CLI, runCli, sandbox, type Sandbox } from './harness.ts';
import { spawnInPty } from './pty.ts';

let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  box = sandbox(emu.baseUrl);
});

interface Body {
  input: { type: string; call_id?: string; output?: unknown; content?: { text: string }[] }[];
  previous_response_id?: string;
  store?: boolean;
  stream?: boolean;
  tools: { type: string; name?: string }[];
  instructions: string;
}
const bodyOf = (i: number): Body => emu.requests[i]?.body as Body;

describe('one-shot', () => {
  it('prints the answer on stdout only and exits 0', async () => {
    const before = emu.requests.length;
    const r = await runCli(['hello there'], box);
    expect(r.stderr).not.toContain('sk-test');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('You said: hello there\n');
    const body = bodyOf(before);
    expect(body.store).toBe(true);
    expect(body.stream).toBe(true);
    expect(body.tools).toEqual([
      { type: 'shell', environment: { type: 'local' } },
      { type: 'apply_patch' },
      expect.objectContaining({ type: 'function', name: 'view_image' }),
      expect.objectContaining({ type: 'function', name: 'exec_command' }),
      expect.objectContaining({ type: 'function', name: 'write_stdin' }),
      expect.objectContaining({ type: 'function', name: 'update_plan' }),
    ]);
    expect(body.previous_response_id).toBeUndefined();
    expect(r.stderr).toMatch(/tokens: \d+ in/);
    // success removes the isolated state file
    expect(readdirSync(box.cwd).filter((f) => f.startsWith('.agentx_responseid'))).toEqual([]);
  });

  it('runs a shell call exactly once and answers after it', async () => {
    const before = emu.requests.length;
    const r = await runCli(['please run: echo hi >> f.txt'], box);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'f.txt'), 'utf8')).toBe('hi\n');
    expect(r.stdout).toContain('Ran it.');
    expect(r.stderr).toContain('$ echo hi >> f.txt');
    expect(r.stderr).toMatch(/exit 0/);
    const follow = bodyOf(before + 1);
    expect(follow.previous_response_id).toBe(emu.requests[before]?.responseId);
    expect(follow.input[0]?.type).toBe('shell_call_output');
  });

  it('does the same through a function tool with --shell-tool function', async () => {
    const before = emu.requests.length;
    const r = await runCli(['--shell-tool', 'function', 'run: echo fn >> g.txt'], box);
    expect(r.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'g.txt'), 'utf8')).toBe('fn\n');
    expect(bodyOf(before).tools[0]).toMatchObject({ type: 'function', name: 'shell' });
    expect(bodyOf(before + 1).input[0]?.type).toBe('function_call_output');
  });

  it('--json emits one JSON object per line', async () => {
    const r = await runCli(['--json', 'run: echo json'], box);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    const types = lines.map((l) => l.type);
    expect(types[0]).toBe('session');
    expect(types).toContain('tool_call');
    expect(types).toContain('tool_output');
    expect(types).toContain('text_delta');
    expect(types).toContain('usage');
    expect(types[types.length - 1]).toBe('final');
  });

  it('answers several calls of one response and caps huge output, keeping head and tail', async () => {
    emu.enqueue({ kind: 'calls', calls: [{ commands: ['echo first'] }, { commands: ['yes abcdefgh | head -c 300000; echo TAIL-END'] }] });
    const before = emu.requests.length;
    const r = await runCli(['go'], box);
    expect(r.code).toBe(0);
    const outputs = bodyOf(before + 1).input as { type: string; output: { stdout: string; outcome: { type: string } }[] }[];
    expect(outputs).toHaveLength(2);
    expect(outputs[0]?.output[0]?.stdout).toBe('first\n');
    const capped = outputs[1]?.output[0]?.stdout ?? '';
    expect(capped.length).toBeLessThan(100_000);
    expect(capped).toMatch(/bytes truncated/);
    expect(capped.startsWith('abcdefgh')).toBe(true);
    expect(capped).toContain('TAIL-END');
  });

  it('stops a command at the call timeout', async () => {
    emu.enqueue({ kind: 'shell', commands: ['sleep 20'], timeoutMs: 300 });
    const before = emu.requests.length;
    const started = Date.now();
    const r = await runCli(['go'], box);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    const out = bodyOf(before + 1).input[0] as { output: { outcome: { type: string } }[] };
    expect(out.output[0]?.outcome.type).toBe('timeout');
    expect(r.stderr).toContain('timed out');
  });

  it('answers a function call with invalid JSON with an error output instead of leaving it open', async () => {
    emu.enqueue({ kind: 'function', name: 'shell', arguments: '{"commands": [' });
    const before = emu.requests.length;
    const r = await runCli(['--shell-tool', 'function', 'go'], box);
    expect(r.code).toBe(0);
    const out = bodyOf(before + 1).input[0] as { type: string; output: string };
    expect(out.type).toBe('function_call_output');
    expect(out.output).toMatch(/invalid JSON/);
  });

  it('reads the message from stdin and prepends the argument', async () => {
    const before = emu.requests.length;
    const r = await runCli(['review this'], { ...box, stdin: 'diff --git a b' });
    expect(r.code).toBe(0);
    const text =
      bodyOf(before)
        .input.at(-1)
        ?.content?.map((c) => c.text)
        .join('\n') ?? '';
    expect(text).toContain('review this');
    expect(text).toContain('diff --git a b');
    const dash = await runCli(['-'], { ...box, stdin: 'from stdin only' });
    expect(dash.stdout).toBe('You said: from stdin only\n');
  });

  it('does not hang on a stdin pipe that never closes', async () => {
    const r = await runCli(['still answers'], { ...box, stdin: { keepOpen: true }, timeoutMs: 10_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('You said: still answers\n');
  });

  it('-q prints the answer only', async () => {
    const r = await runCli(['-q', 'run: echo quiet'], box);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Ran it.');
  });
});

describe('command output width on stderr', () => {
  // A 150-character line of words, then 100 emoji (surrogate pairs in JavaScript, 2 cells each).
  const COMMAND = `run: printf 'word %.0s' $(seq 30); echo; printf '\\360\\237\\230\\200%.0s' $(seq 100); echo`;
  /** The folded rows of the command's output: indented by two spaces, between the command line and its status. */
  function outputRows(stderr: string): string[] {
    const lines = stderr.split('\n');
    const start = lines.findIndex((l) => l.startsWith('$ printf'));
    const end = lines.findIndex((l, i) => i > start && /^ {2}✓ exit 0/.test(l));
    return lines.slice(start + 1, end);
  }
  /** Terminal cells: an emoji takes two. */
  const cells = (row: string): number => [...row].reduce((n, ch) => n + ((ch.codePointAt(0) ?? 0) > 0xffff ? 2 : 1), 0);

  it('a pipe folds at COLUMNS when set, else 80, on character boundaries', async () => {
    for (const [columns, widest] of [
      [undefined, 79],
      ['60', 59],
      ['0', 79],
      ['wide', 79],
    ] as const) {
      const r = await runCli(['--no-color', COMMAND], { ...box, env: { ...box.env, COLUMNS: columns } });
      expect(r.code).toBe(0);
      const rows = outputRows(r.stderr);
      expect(rows.length).toBeGreaterThan(3);
      expect(Math.max(...rows.map(cells))).toBe(widest);
      // Whole characters only: no replacement character, every emoji intact.
      expect(rows.join('')).not.toContain('\ufffd');
      expect(rows.join('').match(/\u{1F600}/gu)).toHaveLength(100);
    }
  });

  it('a terminal that reports 0 columns folds at 80, not at a 20-column floor', async () => {
    // stdout to /dev/null: the width comes from stderr, the pty, which `stty cols 0` leaves unsized.
    const a = spawnInPty('/bin/sh', ['-c', `stty cols 0 rows 0; exec "$0" "$@" > /dev/null`, process.execPath, CLI, '--no-color', COMMAND], box);
    expect((await a.exited).exitCode).toBe(0);
    const rows = outputRows(a.screen());
    expect(Math.max(...rows.map(cells))).toBe(79);
  });

  it('stderr to a file with stdout on a terminal folds at 80, not at the terminal width', async () => {
    const log = join(box.cwd, 'stderr.log');
    const a = spawnInPty('/bin/sh', ['-c', `exec "$0" "$@" 2> ${log}`, process.execPath, CLI, '--no-color', COMMAND], box);
    expect((await a.exited).exitCode).toBe(0);
    expect(Math.max(...outputRows(readFileSync(log, 'utf8')).map(cells))).toBe(79);
  });
});

describe('CLI usage and config', () => {
  it('exits 2 without an API key, with the spec message', async () => {
    const b = sandbox();
    const r = await runCli(['hi'], b);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('agentx: No API key: run "agentx setup" or set AGENTX_API_KEY');
  });

  it('names an unknown flag and exits 2', async () => {
    const r = await runCli(['--frobnicate', 'hi'], box);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option --frobnicate.*--help/);
    const bad = await runCli(['--shell-tool', 'magic', 'hi'], box);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--shell-tool/);
  });

  it('prints help and version', async () => {
    const h = await runCli(['-h'], box);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('--shell-tool');
    const v = await runCli(['--version'], box);
    expect(v.stdout).toMatch(/^agentx \d+\.\d+\.\d+/);
  });

  it('stacks short flags (-qC dir)', async () => {
    const r = await runCli(['-qC', box.cwd, 'run: pwd'], { ...box, cwd: box.home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(box.cwd);
  });

  it('setup writes ~/.agentx with mode 0600 and the key is then used', async () => {
    const b = sandbox(undefined, { AGENTX_BASE_URL: emu.baseUrl });
    const s = await runCli(['setup', '--api-key', 'sk-from-setup-123456', '--model', 'gpt-5-mini'], b);
    expect(s.code).toBe(0);
    const cfg = join(b.home, '.agentx');
    expect(statSync(cfg).mode & 0o777).toBe(0o600);
    expect(readFileSync(cfg, 'utf8')).toContain('AGENTX_MODEL=gpt-5-mini');
    const before = emu.requests.length;
    const r = await runCli(['hi'], b);
    expect(r.code).toBe(0);
    expect((emu.requests[before]?.body as { model: string }).model).toBe('gpt-5-mini');
    expect(r.stdout + r.stderr).not.toContain('sk-from-setup');
  });

  it('flags beat environment beats config file', async () => {
    const b = sandbox(emu.baseUrl, { AGENTX_MODEL: 'gpt-5-codex' });
    writeFileSync(join(b.home, '.agentx'), 'AGENTX_MODEL=gpt-4.1\n', { mode: 0o600 });
    const before = emu.requests.length;
    await runCli(['hi'], b);
    expect((emu.requests[before]?.body as { model: string }).model).toBe('gpt-5-codex');
    await runCli(['-m', 'o4-mini', 'hi'], b);
    expect((emu.requests[before + 1]?.body as { model: string }).model).toBe('o4-mini');
    expect(existsSync(join(b.cwd, '.agentx_checkpoint'))).toBe(false);
  });
});

describe('one-shot --confirm', () => {
  it('never prompts: commands are declined and the model is told', async () => {
    const b = sandbox(emu.baseUrl);
    const before = emu.requests.length;
    const r = await runCli(['--confirm', 'run: touch should-not-exist'], b);
    expect(r.code).toBe(0);
    expect(existsSync(join(b.cwd, 'should-not-exist'))).toBe(false);
    expect(r.stderr).toMatch(/--confirm in a one-shot/);
    expect(JSON.stringify((emu.requests[before + 1]?.body as { input: unknown }).input)).toMatch(/declined/);
  });
});

describe('one-shot stdout', () => {
  it('keeps text written before a tool call on its own line', async () => {
    const b = sandbox(emu.baseUrl);
    emu.enqueue({ kind: 'shell', commands: ['echo 42'], text: 'Let me check.' }, { kind: 'text', text: 'The answer is 42.' });
    const r = await runCli(['what is it?'], b);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Let me check.\nThe answer is 42.\n');
  });
});

describe('one-shot incomplete response', () => {
  it('answers, but says on stderr that the server ended the response early', async () => {
    const b = sandbox(emu.baseUrl);
    const frame = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    emu.enqueue({
      kind: 'raw',
      body:
        frame('response.output_text.delta', { delta: 'The first half' }) +
        frame('response.incomplete', {
          response: {
            id: '{{id}}',
            status: 'incomplete',
            incomplete_details: { reason: 'max_output_tokens' },
            output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The first half' }] }],
          },
        }),
    });
    const r = await runCli(['long story'], b);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('The first half\n');
    expect(r.stderr).toMatch(/ended this response early/);
  });
});
