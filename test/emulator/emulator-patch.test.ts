// The emulator's apply_patch support in its three forms, over real HTTP+SSE through the SDK, with
// the patch applied by agentx's library on a real temp dir and the outputs sent back.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponseInputItem, ResponseStreamEvent, Tool } from 'openai/resources/responses/responses';
import { applyPatch, parsePatchCall, patchToolDefinition } from '../../src/tools/patch/index.ts';
import { outputForCall } from '../../src/tools/wire-output.ts';
import type { ToolCallItem } from '../../src/wire/items.ts';
import type { PatchToolForm } from '../../src/tools/patch/index.ts';
import { NO_MOVE_TEXT, NO_PATCH_TEXT } from './patch.ts';
import { apiError, completed, text, useEmulator } from './test-kit.ts';

const kit = useEmulator();

const toolsFor = (form: PatchToolForm): Tool[] => [patchToolDefinition(form)];

const PATCH = [
  '*** Begin Patch',
  '*** Add File: notes/new.md',
  '+# New',
  '*** Update File: app.txt',
  ' keep',
  '-old',
  '+new',
  '*** Delete File: gone.txt',
  '*** End Patch',
  '',
].join('\n');

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-emu-patch-')));
  writeFileSync(join(root, 'app.txt'), 'keep\nold\n');
  writeFileSync(join(root, 'gone.txt'), 'bye\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Applies every patch call of a response with agentx's library and returns the output items. */
async function answer(output: unknown[]): Promise<ResponseInputItem[]> {
  const items: ResponseInputItem[] = [];
  for (const item of output) {
    const parsed = parsePatchCall(item);
    if (!parsed.ok) continue;
    const result = await applyPatch(parsed.call.operations, { root });
    // parsePatchCall accepted it: a patch call item of one of the three forms. A reply without
    // content parts has a text output, which the SDK's input type accepts.
    items.push(outputForCall(item as ToolCallItem, { ok: result.ok, text: result.output }) as ResponseInputItem);
  }
  return items;
}

function expectPatched(): void {
  expect(readFileSync(join(root, 'notes/new.md'), 'utf8')).toBe('# New\n');
  expect(readFileSync(join(root, 'app.txt'), 'utf8')).toBe('keep\nnew\n');
  expect(() => readFileSync(join(root, 'gone.txt'))).toThrow();
}

const types = (events: ResponseStreamEvent[]): string[] => events.map((e) => e.type);

describe('built-in apply_patch calls', () => {
  it('sends one call per file: empty diff while in progress, full diff when done', async () => {
    kit.emu.enqueue({ kind: 'patch', patch: PATCH });
    const events = await kit.run({ input: 'edit', tools: toolsFor('builtin') });
    const added = events.flatMap((e) => (e.type === 'response.output_item.added' ? [e.item] : []));
    expect(added.map((i) => i.type === 'apply_patch_call' && [i.status, i.operation])).toEqual([
      ['in_progress', { type: 'create_file', path: 'notes/new.md', diff: '' }],
      ['in_progress', { type: 'update_file', path: 'app.txt', diff: '' }],
      ['in_progress', { type: 'delete_file', path: 'gone.txt' }],
    ]);
    const response = completed(events);
    expect(response.output.map((i) => i.type === 'apply_patch_call' && [i.status, i.operation])).toEqual([
      ['completed', { type: 'create_file', path: 'notes/new.md', diff: '+# New\n' }],
      ['completed', { type: 'update_file', path: 'app.txt', diff: ' keep\n-old\n+new\n' }],
      ['completed', { type: 'delete_file', path: 'gone.txt' }],
    ]);
    const outputs = await answer(response.output);
    expectPatched();
    const next = await kit.run({ previous_response_id: response.id, input: outputs, tools: toolsFor('builtin') });
    expect(text(next)).toBe(
      'Ran it. Output:\napply_patch completed: Added notes/new.md (+1 -0)\napply_patch completed: Updated app.txt (+1 -1)\napply_patch completed: Deleted gone.txt (+0 -1)',
    );
  });

  it('enforces one apply_patch_call_output per call, of the right type and status', async () => {
    kit.emu.enqueue({ kind: 'patch', patch: PATCH });
    const response = completed(await kit.run({ input: 'edit', tools: toolsFor('builtin') }));
    const ids = response.output.flatMap((i) => (i.type === 'apply_patch_call' ? [i.call_id] : []));
    const out = (callId: string, status = 'completed'): ResponseInputItem =>
      ({ type: 'apply_patch_call_output', call_id: callId, status, output: 'ok' }) as ResponseInputItem;
    const chained = (input: ResponseInputItem[]) => kit.run({ previous_response_id: response.id, input, tools: toolsFor('builtin') });
    expect((await apiError(chained(ids.slice(0, 2).map((id) => out(id))))).message).toBe(`400 No tool output found for apply patch call ${ids[2]}.`);
    expect((await apiError(chained([...ids.map((id) => out(id)), out(ids[0] ?? '')]))).message).toBe(`400 Duplicate tool output for call_id ${ids[0]}.`);
    const wrongType = [{ type: 'function_call_output', call_id: ids[0] ?? '', output: 'x' } as ResponseInputItem, ...ids.slice(1).map((id) => out(id))];
    expect((await apiError(chained(wrongType))).message).toBe(
      `400 Tool output type 'function_call_output' does not match the apply patch call with call_id ${ids[0]}.`,
    );
    expect((await apiError(chained(ids.map((id) => out(id, 'done'))))).status).toBe(400);
    expect(completed(await chained(ids.map((id) => out(id, 'failed'))))).toMatchObject({ status: 'completed' });
  });

  it('accepts a stateless replay of the calls and their outputs', async () => {
    kit.emu.enqueue({ kind: 'patch', patch: PATCH });
    const first = completed(await kit.run({ input: 'edit', tools: toolsFor('builtin'), store: false }));
    const replay = [{ type: 'message', role: 'user', content: 'edit' }, ...first.output, ...(await answer(first.output))] as ResponseInputItem[];
    expect(text(await kit.run({ input: replay, tools: toolsFor('builtin'), store: false }))).toContain('apply_patch completed: Updated app.txt (+1 -1)');
  });

  it('says so instead of sending a move, which the built-in tool cannot express', async () => {
    kit.emu.enqueue({ kind: 'patch', patch: '*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch\n' });
    expect(text(await kit.run({ input: 'mv', tools: toolsFor('builtin') }))).toBe(NO_MOVE_TEXT);
  });
});

describe('function and custom forms', () => {
  it('sends a function_call named apply_patch with {"input": envelope} and reports its output', async () => {
    kit.emu.enqueue({ kind: 'patch', patch: PATCH, text: 'Editing.' });
    const events = await kit.run({ input: 'edit', tools: toolsFor('function') });
    expect(types(events)).toContain('response.function_call_arguments.delta');
    const response = completed(events);
    const call = response.output[1];
    expect(call?.type === 'function_call' && [call.name, JSON.parse(call.arguments)]).toEqual(['apply_patch', { input: PATCH }]);
    const outputs = await answer(response.output);
    expectPatched();
    const next = await kit.run({ previous_response_id: response.id, input: outputs, tools: toolsFor('function') });
    expect(text(next)).toBe('Ran it. Output:\nAdded notes/new.md (+1 -0)\nUpdated app.txt (+1 -1)\nDeleted gone.txt (+0 -1)');
  });

  it('streams a custom_tool_call input as deltas, then done, and takes a custom_tool_call_output', async () => {
    kit.emu.enqueue({ kind: 'patch', patch: PATCH });
    const events = await kit.run({ input: 'edit', tools: toolsFor('custom') });
    expect(types(events).slice(2)).toEqual([
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const added = events.find((e) => e.type === 'response.output_item.added');
    expect(added?.type === 'response.output_item.added' && added.item).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: '' });
    expect(events.map((e) => (e.type === 'response.custom_tool_call_input.delta' ? e.delta : '')).join('')).toBe(PATCH);
    const done = events.find((e) => e.type === 'response.custom_tool_call_input.done');
    expect(done?.type === 'response.custom_tool_call_input.done' && done.input).toBe(PATCH);
    const response = completed(events);
    const outputs = await answer(response.output);
    expectPatched();
    expect(outputs).toEqual([expect.objectContaining({ type: 'custom_tool_call_output' })]);
    const next = await kit.run({ previous_response_id: response.id, input: outputs, tools: toolsFor('custom') });
    expect(text(next)).toContain('Updated app.txt (+1 -1)');
    const missing = await apiError(kit.run({ previous_response_id: response.id, input: 'again', tools: toolsFor('custom') }));
    expect(missing.message).toMatch(/^400 No tool output found for custom tool call call_/);
  });
});

describe('the default brain', () => {
  it('sends a patch pasted in the user message in the form the tools offer', async () => {
    const prompt = `please apply this:\n${PATCH}`;
    const builtin = completed(await kit.run({ input: prompt, tools: toolsFor('builtin') }));
    expect(builtin.output.map((i) => i.type)).toEqual(['apply_patch_call', 'apply_patch_call', 'apply_patch_call']);
    const custom = completed(await kit.run({ input: prompt, tools: toolsFor('custom') }));
    expect(custom.output[0]).toMatchObject({ type: 'custom_tool_call', input: PATCH });
    expect(text(await kit.run({ input: prompt }))).toBe(NO_PATCH_TEXT);
  });

  it('takes a patch step over the control endpoint and refuses a malformed one', async () => {
    const ok = await kit.post('/__emulator/enqueue', [{ kind: 'patch', patch: PATCH, text: 'x' }]);
    expect(ok.status).toBe(200);
    const bad = await kit.post('/__emulator/enqueue', [{ kind: 'patch', patch: 42 }]);
    expect(bad.status).toBe(400);
  });
});
