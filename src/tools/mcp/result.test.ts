// MCP results as function_call_output text, and the call helpers (arguments, display line).
import { describe, expect, it } from 'vitest';
import { MCP_RETRY_NOTICE, callEventFields, displayLine, parseArguments, runMcpCall } from './call.ts';
import type { RunContext } from './call.ts';
import { resultToText } from './result.ts';

describe('resultToText', () => {
  it('joins text blocks and names non-text content', () => {
    const r = resultToText(
      {
        content: [
          { type: 'text', text: 'line one' },
          { type: 'image', data: 'A'.repeat(4000), mimeType: 'image/jpeg' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'https://x/y', name: 'y' },
        ],
      },
      10_000,
    );
    expect(r).toEqual({
      text: 'line one\n[image image/jpeg, 2.9 KB: not shown]\n[audio audio/wav, 3 bytes: not shown]\n[resource link: y https://x/y]',
      isError: false,
      cutBytes: 0,
    });
  });

  it('marks errors, and says so when there is nothing else', () => {
    expect(resultToText({ isError: true, content: [] }, 100)).toEqual({ text: 'The tool reported an error:\n(no details)', isError: true, cutBytes: 0 });
    expect(resultToText({ content: [] }, 100).text).toBe('(no output)');
  });

  it('uses structuredContent only when there is no content', () => {
    expect(resultToText({ content: [{ type: 'text', text: 'shown' }], structuredContent: { a: 1 } }, 100).text).toBe('shown');
    expect(resultToText({ content: [], structuredContent: { a: [1, 2] } }, 100).text).toBe('{"a":[1,2]}');
  });

  it('caps head and tail on a character boundary', () => {
    const r = resultToText({ content: [{ type: 'text', text: `${'é'.repeat(100)}END` }] }, 20);
    expect(r.text.startsWith('ééééé\n')).toBe(true);
    expect(r.text.endsWith('END')).toBe(true);
    expect(r.cutBytes).toBeGreaterThan(0);
    expect(r.text).not.toContain('\uFFFD');
  });
});

describe('call helpers', () => {
  it('parses arguments: empty means none, anything but an object is refused', () => {
    expect(parseArguments('')).toEqual({ ok: true, value: {} });
    expect(parseArguments(' {"a":1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseArguments('null')).toEqual({ ok: false, error: 'arguments must be a JSON object' });
    expect(parseArguments('{').ok).toBe(false);
  });

  it('shows a call in one line with the arguments cut', () => {
    expect(displayLine({ server: 'gh', tool: 'create_issue', arguments: '{"title":"a\\nb"}' })).toBe('gh › create_issue {"title":"a\\nb"}');
    expect(displayLine({ server: 's', tool: 't', arguments: '' })).toBe('s › t');
    const long = displayLine({ server: 's', tool: 't', arguments: JSON.stringify({ x: 'y'.repeat(500) }) });
    expect(long.length).toBeLessThan(140);
    expect(long.endsWith('…')).toBe(true);
  });

  it('says in the retry notice that MCP calls may not be idempotent', () => {
    expect(MCP_RETRY_NOTICE).toMatch(/may not be idempotent/);
  });

  it('never sends a call with bad arguments, to an unavailable server, or after an abort', async () => {
    let sent = 0;
    const ctx = (extra: Partial<RunContext>): RunContext => ({
      server: 's',
      tool: 't',
      timeoutMs: 1000,
      totalTimeoutMs: 10_000,
      maxOutputBytes: 100,
      serverError: () => undefined,
      send: () => {
        sent++;
        return Promise.resolve({ content: [] });
      },
      ...extra,
    });
    expect((await runMcpCall('[]', ctx({}))).status).toBe('not_sent');
    expect(await runMcpCall('{}', ctx({ unavailable: 'server s is failed' }))).toMatchObject({
      status: 'not_sent',
      output: 'MCP tool t on server s: not called: server s is failed',
    });
    const aborted = new AbortController();
    aborted.abort();
    expect((await runMcpCall('{}', ctx({ signal: aborted.signal }))).status).toBe('interrupted');
    expect(sent).toBe(0);
    expect(await runMcpCall('{}', ctx({}))).toMatchObject({ status: 'ok', output: '(no output)' });
    expect(sent).toBe(1);
  });

  it('turns a JSON-RPC error from the server into an output line with its code', async () => {
    const err = Object.assign(new Error('MCP error -32602: Invalid params'), { code: -32602 });
    const outcome = await runMcpCall('{}', {
      server: 's',
      tool: 't',
      timeoutMs: 1000,
      totalTimeoutMs: 10_000,
      maxOutputBytes: 100,
      serverError: () => undefined,
      send: () => Promise.reject(err),
    });
    expect(outcome).toMatchObject({ status: 'failed', output: 'MCP tool t on server s: error -32602: MCP error -32602: Invalid params' });
  });

  it('gives the --json event fields of a finished call', () => {
    const record = { kind: 'mcp', server: 's', tool: 't', arguments: '{"a":1}' } as const;
    expect(callEventFields(record, { status: 'tool_error', output: 'é', images: [], cutBytes: 3, durationMs: 12 })).toEqual({
      server: 's',
      tool: 't',
      arguments: '{"a":1}',
      status: 'tool_error',
      is_error: true,
      duration_ms: 12,
      output_bytes: 2,
      truncated_bytes: 3,
    });
  });
});
