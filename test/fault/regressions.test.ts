// Regression tests for the defects the fault suite found (RELIABILITY.md, "Defects found").
// Each names the check that found it; each failed before its fix.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { CLI, runCli, sandbox } from '../e2e/harness.ts';
import { readConfigFile } from '../../src/config/config.ts';
import { createOpenAIClient } from '../../src/model/client.ts';
import { ModelError } from '../../src/model/errors.ts';
import { envWithoutSecrets, scrubSecrets } from '../../src/model/scrub.ts';
import type { ModelClient, ModelEvent } from '../../src/model/types.ts';
import { MAX_STATE_DEPTH, parseState, serializeState } from '../../src/store/parse.ts';
import { loadState, saveState, STATE_FILE } from '../../src/store/store.ts';
import { isolatedFiles, waitUntil } from './lib/checks.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

describe('malformed corpus: a deeply nested state file', () => {
  const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('is refused with a one-line reason instead of loading and then failing every save', () => {
    for (const field of ['extra', 'history', 'rollback_backup']) {
      const parsed = parseState(`{"version":1,"response_id":"resp_1","${field}":${nested(100_000)}}`);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.reason).toBe(`nested more than ${MAX_STATE_DEPTH} levels deep`);
    }
  });

  it('is moved aside byte for byte and a fresh session starts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-fault-'));
    const text = `{"version":1,"response_id":"resp_1","extra":${nested(20_000)}}`;
    writeFileSync(join(dir, STATE_FILE), text);
    const loaded = loadState(join(dir, STATE_FILE), new Date());
    expect(loaded.existed).toBe(false);
    expect(loaded.writable).toBe(true);
    expect(loaded.notices).toHaveLength(1);
    const aside = readdirSync(dir).filter((f) => f.includes('.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, aside[0] ?? ''), 'utf8')).toBe(text);
    saveState(join(dir, STATE_FILE), loaded.state);
  });

  it('still accepts unknown fields nested as deep as any real state, and saves them', () => {
    const parsed = parseState(`{"version":1,"response_id":"resp_1","extra":${nested(MAX_STATE_DEPTH - 1)}}`);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parseState(serializeState(parsed.state)).ok).toBe(true);
  });
});

describe('crash fuzz: a one-shot killed before its first response', () => {
  it('keeps the message it was asked in its isolated file', async () => {
    const sb = sandbox(emu.baseUrl);
    emu.enqueue({ kind: 'hang' });
    const n = emu.requests.length;
    const child = spawn(process.execPath, [CLI, 'a message that never got an answer'], { cwd: sb.cwd, env: sb.env, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('close', resolve));
    expect(await waitUntil(() => emu.requests.length > n, 20_000)).toBe(true);
    child.kill('SIGKILL');
    await exited;
    const files = isolatedFiles(sb.cwd);
    expect(files).toHaveLength(1);
    const kept = parseState(readFileSync(join(sb.cwd, files[0] ?? ''), 'utf8'));
    expect(kept.ok && kept.state.last_user_message).toBe('a message that never got an answer');
    expect(existsSync(join(sb.cwd, STATE_FILE))).toBe(false);
  });
});

describe('malformed corpus: a huge or nested "version" value', () => {
  it('is quoted short in the one-line reason', () => {
    const parsed = parseState(`{"version":{"a":"${'x'.repeat(5000)}"},"response_id":"resp_1"}`);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason.length).toBeLessThan(80);
  });
});

describe('malformed corpus: a config file that is a FIFO', () => {
  it('is refused at once with one line instead of blocking every start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentx-fault-'));
    const fifo = join(dir, 'config');
    execFileSync('mkfifo', [fifo]);
    expect(() => readConfigFile(fifo)).toThrow(/config file .* is not a regular file/);
    expect(() => readConfigFile(dir)).toThrow(/is not a regular file/);
    expect(readConfigFile(join(dir, 'absent'))).toEqual({});
  });
});

/** A client that answers with the given wire body, through the real SSE reader and parser. */
async function answerWith(body: string): Promise<{ events: ModelEvent[]; error: unknown }> {
  emu.enqueue({ kind: 'raw', body });
  const client = await createOpenAIClient({ apiKey: 'sk-regression', baseUrl: emu.baseUrl, idleTimeoutMs: 10_000 });
  const events: ModelEvent[] = [];
  try {
    for await (const ev of client.stream({ model: 'gpt-5', instructions: '', input: [], store: true, stream: true, tools: [] }, new AbortController().signal))
      events.push(ev);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

const sse = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const done = (usage: unknown, text = 'hi'): string =>
  sse('response.completed', {
    response: { id: '{{id}}', status: 'completed', usage, output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }] },
  });

describe('malformed corpus: server answers', () => {
  it('usage of the wrong types counts as 0 instead of leaking "0lots" into totals and --json', async () => {
    const { events } = await answerWith(done({ input_tokens: 'lots', output_tokens: null, output_tokens_details: { reasoning_tokens: NaN } }));
    const completed = events.find((e) => e.type === 'completed');
    expect(completed?.type === 'completed' && completed.response.usage).toEqual({ inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0 });
  });

  it('bad JSON and events missing their payload fail with a message that says so', async () => {
    const bad = await answerWith('event: x\ndata: {"type":\n\n');
    expect(bad.error).toBeInstanceOf(ModelError);
    expect((bad.error as ModelError).message).toMatch(/^the server sent an event that is not valid JSON/);
    expect((bad.error as ModelError).kind).toBe('retryable');
    const empty = await answerWith('event: response.completed\ndata: {"type":"response.completed"}\n\n');
    expect((empty.error as ModelError).message).toMatch(/^the server sent a malformed event/);
  });

  it('a text delta without its text fails as a malformed event instead of showing "undefined"', async () => {
    const r = await answerWith(`${sse('response.output_text.delta', {})}${done(undefined)}`);
    expect(r.events.filter((e) => e.type === 'text_delta')).toEqual([]);
    expect((r.error as ModelError).message).toMatch(/^the server sent a malformed event \(a response.output_text.delta event without its text delta\)/);
    expect((r.error as ModelError).kind).toBe('retryable');
  });

  it('an answer sent only in the completed response (no deltas) is still shown', async () => {
    const sb = sandbox(emu.baseUrl);
    emu.enqueue({ kind: 'raw', body: done(undefined, 'only in the completion') });
    const r = await runCli(['hello'], { cwd: sb.cwd, env: sb.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('only in the completion\n');
  });
});

describe('secrets: the key coming back from outside', () => {
  const key = 'sk-regression-secret-0123456789abcdef';

  it('a server error that echoes the key is scrubbed from stderr, --json and the kept state', async () => {
    const sb = sandbox(emu.baseUrl, { AGENTX_API_KEY: key });
    emu.enqueue({ kind: 'http_error', status: 401, message: `Incorrect API key provided: ${key}` });
    const r = await runCli(['--json', 'hello'], { cwd: sb.cwd, env: sb.env, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Incorrect API key provided: [REDACTED]');
    expect(r.stdout + r.stderr).not.toContain(key);
    const files = isolatedFiles(sb.cwd);
    expect(files).toHaveLength(1);
    expect(readFileSync(join(sb.cwd, files[0] ?? ''), 'utf8')).not.toContain(key);
  });

  it('model commands do not inherit the variables that hold the key', async () => {
    const sb = sandbox(emu.baseUrl, { AGENTX_API_KEY: key, OPENAI_API_KEY: key, OTHER_SETTING: 'kept' });
    emu.enqueue({ kind: 'shell', commands: ['echo "[$AGENTX_API_KEY][$OPENAI_API_KEY][$OTHER_SETTING]"'] });
    const r = await runCli(['show the env'], { cwd: sb.cwd, env: sb.env, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[][][kept]');
    expect(JSON.stringify(emu.requests.map((q) => q.body))).not.toContain(key);
  });

  it('scrubSecrets and envWithoutSecrets, directly', async () => {
    const failing: ModelClient = {
      stream: () => ({
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new ModelError(`bad key ${key}`, 'fatal', { status: 401, partialText: `said ${key}` })) }),
      }),
    };
    const err = await (async () => {
      try {
        for await (const _ of scrubSecrets(failing, [key]).stream({} as never, new AbortController().signal)) {
          /* nothing */
        }
      } catch (e) {
        return e as ModelError;
      }
      return undefined;
    })();
    expect(err?.message).toBe('bad key [REDACTED]');
    expect(err?.details).toEqual({ status: 401, partialText: 'said [REDACTED]' });
    expect(err?.kind).toBe('fatal');
    expect(envWithoutSecrets({ A: key, B: 'b', C: undefined }, [key])).toEqual({ B: 'b' });
  });
});
