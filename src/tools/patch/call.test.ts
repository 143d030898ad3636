import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPatch, parsePatch, parsePatchCall, runPatchCall, type ParsedPatch } from './index.ts';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-call-')));
  writeFileSync(join(root, 'a.txt'), 'x\ny\n');
  writeFileSync(join(root, 'b.txt'), 'b\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const PATCH = '*** Begin Patch\n*** Update File: a.txt\n x\n+inserted\n y\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n';
const custom = (input: string): ParsedPatch => {
  const parsed = parsePatchCall({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'call_c', input });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.call;
};
const read = (p: string) => readFileSync(join(root, p), 'utf8');

describe('runPatchCall', () => {
  it('applies a call and says what changed', async () => {
    const out = await runPatchCall(custom(PATCH), { root });
    expect(out.output).toBe('Updated a.txt (+1 -0)\nUpdated b.txt (+1 -1)');
    expect(out.ok && out.changes.map((c) => [c.path, c.added, c.removed])).toEqual([
      ['a.txt', 1, 0],
      ['b.txt', 1, 1],
    ]);
  });

  it('a call that fails says so without touching anything', async () => {
    const out = await runPatchCall(
      {
        form: 'builtin',
        callId: 'call_b',
        operations: [
          { type: 'delete', path: 'missing.txt' },
          { type: 'delete', path: 'a.txt' },
        ],
      },
      { root },
    );
    expect(out.ok).toBe(false);
    expect(out.output).toContain('cannot delete missing.txt: no such file');
    expect(read('a.txt')).toBe('x\ny\n');
  });

  it('on a retry after a crash answers "already applied" instead of inserting twice', async () => {
    await applyPatch(parsePatch(PATCH), { root }); // applied, then agentx was killed before recording it
    const out = await runPatchCall(custom(PATCH), { root, retry: true });
    expect(out.output).toBe('Already applied (agentx stopped after applying this patch, before reporting it): a.txt, b.txt');
    expect(read('a.txt')).toBe('x\ninserted\ny\n');
  });

  it('on a retry applies only what a crash left undone', async () => {
    writeFileSync(join(root, 'b.txt'), 'B\n');
    const out = await runPatchCall(custom(PATCH), { root, retry: true });
    expect(out.output).toBe('Already applied before agentx stopped: b.txt\nUpdated a.txt (+1 -0)');
    expect([read('a.txt'), read('b.txt')]).toEqual(['x\ninserted\ny\n', 'B\n']);
  });

  it('on a retry of a patch not applied at all, simply applies it', async () => {
    const out = await runPatchCall(custom(PATCH), { root, retry: true });
    expect(out.output).toBe('Updated a.txt (+1 -0)\nUpdated b.txt (+1 -1)');
  });
});
