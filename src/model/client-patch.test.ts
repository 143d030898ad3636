// The model client surfaces apply_patch calls of every form in CompletedResponse.toolCalls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../test/emulator/server.ts';
import { patchToolDefinition, type PatchToolForm } from '../tools/patch/index.ts';
import { createOpenAIClient } from './client.ts';
import type { CompletedResponse, ModelClient, ModelRequest } from './types.ts';

let emu: Emulator;
let client: ModelClient;

beforeAll(async () => {
  emu = await startEmulator();
  client = await createOpenAIClient({ apiKey: 'k', baseUrl: emu.baseUrl, idleTimeoutMs: 5000 });
});
afterAll(async () => {
  await emu.close();
});

const PATCH = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Delete File: b.txt\n*** End Patch\n';

async function completedWith(form: PatchToolForm): Promise<CompletedResponse> {
  emu.enqueue({ kind: 'patch', patch: PATCH });
  const request: ModelRequest = {
    model: 'gpt-5',
    instructions: 'sys',
    store: true,
    stream: true,
    tools: [patchToolDefinition(form)],
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'edit' }] }],
  };
  for await (const ev of client.stream(request, new AbortController().signal)) if (ev.type === 'completed') return ev.response;
  throw new Error('no completed response');
}

describe('CompletedResponse.toolCalls with apply_patch', () => {
  it('carries built-in apply_patch_call items with their operations', async () => {
    const r = await completedWith('builtin');
    expect(r.toolCalls).toEqual([
      expect.objectContaining({ type: 'apply_patch_call', status: 'completed', operation: { type: 'create_file', path: 'a.txt', diff: '+hi\n' } }),
      expect.objectContaining({ type: 'apply_patch_call', status: 'completed', operation: { type: 'delete_file', path: 'b.txt' } }),
    ]);
    expect(r.toolCalls.every((c) => c.call_id.startsWith('call_'))).toBe(true);
  });

  it('carries custom_tool_call items with the raw input, and function calls as before', async () => {
    expect((await completedWith('custom')).toolCalls).toEqual([expect.objectContaining({ type: 'custom_tool_call', name: 'apply_patch', input: PATCH })]);
    expect((await completedWith('function')).toolCalls).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'apply_patch', arguments: JSON.stringify({ input: PATCH }) }),
    ]);
  });
});
