// The worked example of docs/ARCHITECTURE.md, "Adding a tool": a new local tool is one module
// (here, `createWordCountTool`, written as it would be in src/tools/word-count.ts) plus one line
// in the registry. It reports progress with the generic `tool_progress` event and answers with
// a reply that tools/wire-output.ts turns into the output item, so nothing in the engine, the
// terminal renderer or --json changes for it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJsonLine } from '../frontends/json.ts';
import { isRecord } from '../lib/guards.ts';
import { Renderer } from '../ui/render.ts';
import { PLAIN_THEME } from '../ui/theme.ts';
import type { LocalTool, ParsedCall } from '../tools/tool.ts';
import { Engine } from './engine.ts';
import { harness } from '../../test/support/engine.ts';

// ── src/tools/word-count.ts, in full ─────────────────────────────────────────────────────────
interface WordCountCall extends ParsedCall {
  path: string;
}

function createWordCountTool(): LocalTool<WordCountCall> {
  return {
    name: 'word_count',
    writes: false,
    definitions: () => [
      {
        type: 'function',
        name: 'word_count',
        description: 'Count the words of a text file in the workspace.',
        strict: true,
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
      },
    ],
    accepts: (item) => item.type === 'function_call' && item.name === 'word_count',
    parse(item) {
      let args: unknown;
      try {
        args = item.type === 'function_call' ? JSON.parse(item.arguments) : undefined;
      } catch {
        args = undefined;
      }
      if (!isRecord(args) || typeof args.path !== 'string') return { ok: false, callId: item.call_id, error: '"path" must be a string' };
      return { ok: true, call: { callId: item.call_id, title: `word_count ${args.path}`, commands: [], path: args.path } };
    },
    run(call, ctx) {
      let text: string;
      try {
        text = readFileSync(resolve(ctx.cwd, call.path), 'utf8');
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        return Promise.resolve({ reply: { ok: false, text: `error: ${reason}` }, summary: [`word_count ${call.path}: ${reason}`], interrupted: false });
      }
      const words = text.split(/\s+/).filter((w) => w !== '').length;
      ctx.progress({ type: 'tool_progress', callId: call.callId, tool: 'word_count', message: `${call.path}: ${words} words` });
      return Promise.resolve({ reply: { ok: true, text: String(words) }, summary: [`word_count ${call.path}: ${words}`], interrupted: false });
    },
  };
}
// ── end of src/tools/word-count.ts ─────────────────────────────────────────────────────────

describe('adding a tool: one module plus one registry line', () => {
  it('is offered, runs in a turn, answers the model, and shows its progress in --json and on the terminal', async () => {
    const call = { type: 'function_call' as const, call_id: 'w1', name: 'word_count', arguments: JSON.stringify({ path: 'notes.txt' }) };
    // The registry line: buildRegistry's list gets `createWordCountTool()`.
    const h = harness([{ text: '', calls: [call] }, { text: 'Five words.' }], [createWordCountTool()]);
    writeFileSync(join(h.dir, 'notes.txt'), 'one two  three\nfour five\n');

    await new Engine(h.deps).message('how many words in notes.txt?', [], new AbortController().signal);

    expect(h.client.requests[0]?.tools).toContainEqual(expect.objectContaining({ type: 'function', name: 'word_count' }));
    expect(h.client.requests[1]?.input).toContainEqual({ type: 'function_call_output', call_id: 'w1', output: '5' });
    const progress = h.events.find((e) => e.type === 'tool_progress');
    expect(progress && toJsonLine(progress)).toEqual({ type: 'tool_progress', call_id: 'w1', tool: 'word_count', message: 'notes.txt: 5 words' });
    let shown = '';
    const terminal = {
      isTTY: false,
      write: (s: string) => {
        shown += s;
      },
    };
    if (progress)
      new Renderer(terminal, terminal, PLAIN_THEME, {
        quiet: false,
        showUsage: false,
        showTimers: false,
        showReasoning: false,
        showShellCalls: true,
        streamText: true,
        maxCommandLines: 5,
      }).handle(progress);
    expect(shown).toContain('word_count: notes.txt: 5 words');
  });
});
