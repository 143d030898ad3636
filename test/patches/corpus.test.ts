// The patch corpus: every directory here is a scenario (input/ + patch + expected/ or
// expected-error, optional setup.json), applied on a real temp dir in all three wire forms.
// The workspace is <tmp>/proj; a sibling <tmp>/proj2 (the prefix-bug trap) and <tmp>/outside
// must never change. In the patch text {{ROOT}} and {{OUTSIDE}} stand for those paths.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { alreadyApplied, applyPatch, failureOutput, parsePatch, parsePatchCall, toBuiltinOperation } from '../../src/tools/patch/index.ts';
import type { FileOperation, PatchResult } from '../../src/tools/patch/index.ts';
import { snapshotTree, treeDifferences } from './tree.ts';

const CORPUS = dirname(fileURLToPath(import.meta.url));
const scenarios = readdirSync(CORPUS)
  .filter((name) => statSync(join(CORPUS, name)).isDirectory())
  .sort();

interface Setup {
  /** Symbolic links to create in the workspace: path → target (as written). */
  symlinks?: Record<string, string>;
  /** Files generated in the workspace: path → size in bytes (lines of 'x'). */
  generate?: Record<string, number>;
  /** Working directory (relative to the workspace) that relative paths start from. */
  cwd?: string;
}

type Form = 'function' | 'custom' | 'builtin';
const FORMS: Form[] = ['function', 'custom', 'builtin'];

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

interface Workspace {
  base: string;
  root: string;
  cwd: string;
  patch: string;
}

function prepare(name: string, setup: Setup): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `agentx-patch-${name}-`)));
  temps.push(base);
  const root = join(base, 'proj');
  mkdirSync(root);
  const input = join(CORPUS, name, 'input');
  if (existsSync(input)) cpSync(input, root, { recursive: true, verbatimSymlinks: true });
  mkdirSync(join(base, 'proj2'));
  writeFileSync(join(base, 'proj2', 'victim.txt'), 'the sibling directory must not change\n');
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), 'outside the workspace\n');
  for (const [path, target] of Object.entries(setup.symlinks ?? {})) symlinkSync(target, join(root, path));
  for (const [path, bytes] of Object.entries(setup.generate ?? {})) {
    const line = `${'x'.repeat(99)}\n`;
    writeFileSync(join(root, path), line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
  }
  const patch = readFileSync(join(CORPUS, name, 'patch'), 'utf8')
    .split('{{ROOT}}')
    .join(root)
    .split('{{OUTSIDE}}')
    .join(join(base, 'outside'));
  return { base, root, cwd: join(root, setup.cwd ?? ''), patch };
}

/** One call of a form: the item as the model would send it. */
function callItem(form: Form, patchOrOp: string | FileOperation, n: number): unknown {
  if (form === 'function') return { type: 'function_call', name: 'apply_patch', call_id: `call_${n}`, arguments: JSON.stringify({ input: patchOrOp }) };
  if (form === 'custom') return { type: 'custom_tool_call', name: 'apply_patch', call_id: `call_${n}`, input: patchOrOp };
  const op = typeof patchOrOp === 'string' ? null : toBuiltinOperation(patchOrOp);
  return { type: 'apply_patch_call', id: `apc_${n}`, call_id: `call_${n}`, status: 'completed', operation: op };
}

interface CallRun {
  result: PatchResult;
  operations: FileOperation[];
  /** The workspace just before and after this call. */
  before: ReturnType<typeof snapshotTree>;
  after: ReturnType<typeof snapshotTree>;
}

async function runCall(ws: Workspace, item: unknown): Promise<CallRun> {
  const before = snapshotTree(ws.base);
  const parsed = parsePatchCall(item);
  const result: PatchResult = parsed.ok
    ? await applyPatch(parsed.call.operations, { root: ws.root, cwd: ws.cwd })
    : { ok: false, error: { kind: 'parse', message: parsed.error }, output: failureOutput(parsed.error) };
  return { result, operations: parsed.ok ? parsed.call.operations : [], before, after: snapshotTree(ws.base) };
}

/** The calls of a form, or null when the form cannot carry this patch (malformed envelope or a move, for built-in calls). */
function callsFor(form: Form, patch: string): unknown[] | null {
  if (form !== 'builtin') return [callItem(form, patch, 1)];
  let ops: FileOperation[];
  try {
    ops = parsePatch(patch);
  } catch {
    return null;
  }
  if (ops.some((op) => toBuiltinOperation(op) === null)) return null;
  return ops.map((op, i) => callItem('builtin', op, i + 1));
}

function expectedLines(name: string): string[] {
  return readFileSync(join(CORPUS, name, 'expected-error'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

function setupOf(name: string): Setup {
  const file = join(CORPUS, name, 'setup.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Setup) : {};
}

describe.each(scenarios)('%s', (name) => {
  const dir = join(CORPUS, name);
  const failing = existsSync(join(dir, 'expected-error'));
  it('has a patch and exactly one of expected/ or expected-error', () => {
    expect(existsSync(join(dir, 'patch'))).toBe(true);
    expect(existsSync(join(dir, 'expected'))).toBe(!failing);
  });

  it.each(FORMS)('%s form', async (form) => {
    const setup = setupOf(name);
    const ws = prepare(name, setup);
    const outsideBefore = [snapshotTree(join(ws.base, 'proj2')), snapshotTree(join(ws.base, 'outside'))];
    const calls = callsFor(form, ws.patch);
    if (calls === null) return; // this form cannot express the scenario (checked by the others)
    const runs: CallRun[] = [];
    for (const item of calls) runs.push(await runCall(ws, item));
    expect(treeDifferences(snapshotTree(join(ws.base, 'proj2')), outsideBefore[0] as Map<string, never>)).toEqual([]);
    expect(treeDifferences(snapshotTree(join(ws.base, 'outside')), outsideBefore[1] as Map<string, never>)).toEqual([]);
    if (failing) {
      const failed = runs.filter((r) => !r.result.ok);
      expect(failed.length, 'some call must fail').toBeGreaterThan(0);
      const output = failed.map((r) => r.result.output).join('\n');
      for (const line of expectedLines(name)) expect(output).toContain(line);
      // Every call is all-or-nothing: a failing call leaves every file byte-identical.
      for (const r of failed) expect(treeDifferences(r.after, r.before)).toEqual([]);
      return;
    }
    for (const r of runs) expect(r.result.output, 'every call succeeds').not.toMatch(/^Patch not applied/);
    const actual = snapshotTree(ws.root);
    for (const link of Object.keys(setup.symlinks ?? {})) actual.delete(link);
    expect(treeDifferences(actual, snapshotTree(join(dir, 'expected')))).toEqual([]);
    // Retrying any call now must find it already applied (exactly-once after a crash).
    if (form !== 'builtin') {
      for (const r of runs) expect(await alreadyApplied(r.operations, { root: ws.root, cwd: ws.cwd })).toMatchObject({ applied: true });
    }
  });
});
