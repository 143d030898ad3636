// The patch tool in the engine: a call journaled `started` by an agentx that died after writing
// the file is answered "already applied" on Retry, and the file is not patched twice.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../engine/engine.ts';
import { harness } from '../../test/support/engine.ts';
import { emptyState, recordToolCalls } from '../store/state.ts';
import { createPatchTool } from './patch-tool.ts';

const usage = { inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0 };
const envelope = '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n';

function deadSession(form: 'function' | 'builtin') {
  const call =
    form === 'function'
      ? { type: 'function_call' as const, call_id: 'p1', name: 'apply_patch', arguments: JSON.stringify({ input: envelope }), status: 'started' as const }
      : {
          type: 'apply_patch_call' as const,
          call_id: 'p1',
          operation: { type: 'update_file' as const, path: 'a.txt', diff: '@@\n-one\n+two\n' },
          status: 'started' as const,
        };
  return recordToolCalls(emptyState(), { responseId: 'resp_dead', usage, userMessage: 'edit a', calls: [call] });
}

describe('apply_patch exactly once', () => {
  it.each(['function', 'builtin'] as const)('%s: Retry after a crash finds the patch already applied and does not apply it twice', async (form) => {
    const h = harness([{ text: 'done' }], [createPatchTool({ form, readOnly: false })], { initial: deadSession(form) });
    writeFileSync(join(h.dir, 'a.txt'), 'two\n'); // the crashed run had written it
    const outcome = await new Engine(h.deps).resumePendingCalls('run', new AbortController().signal);
    expect(outcome.kind).toBe('done');
    expect(readFileSync(join(h.dir, 'a.txt'), 'utf8')).toBe('two\n');
    expect(JSON.stringify(h.client.requests[0]?.input)).toMatch(/Already applied/);
  });

  it('Retry applies the patch when the crash came before the write', async () => {
    const h = harness([{ text: 'done' }], [createPatchTool({ form: 'function', readOnly: false })], { initial: deadSession('function') });
    writeFileSync(join(h.dir, 'a.txt'), 'one\n');
    await new Engine(h.deps).resumePendingCalls('run', new AbortController().signal);
    expect(readFileSync(join(h.dir, 'a.txt'), 'utf8')).toBe('two\n');
  });

  it('a read-only sandbox refuses the edit and leaves the file alone', async () => {
    const h = harness([{ text: 'done' }], [createPatchTool({ form: 'function', readOnly: true })], { initial: deadSession('function') });
    writeFileSync(join(h.dir, 'a.txt'), 'one\n');
    await new Engine(h.deps).resumePendingCalls('run', new AbortController().signal);
    expect(readFileSync(join(h.dir, 'a.txt'), 'utf8')).toBe('one\n');
    expect(JSON.stringify(h.client.requests[0]?.input)).toMatch(/read-only/);
  });
});
