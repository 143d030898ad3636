// The V8 code cache of bin/agentx.js: written once by a run that loaded a mode (not by --version),
// reused as it is, replaced when V8 rejects it, never needed (a broken or unwritable cache only
// means compiling), off with AGENTX_CODE_CACHE=off, and out of reach of sandboxed commands.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox, type Sandbox } from './harness.ts';

let emu: Emulator;
let box: Sandbox;
beforeAll(async () => { emu = await startEmulator(); });
afterAll(async () => { await emu.close(); });
beforeEach(() => {
  box = sandbox(emu.baseUrl);
  // This file tests the cache itself: each sandbox has its own, in the default place.
  delete box.env.XDG_CACHE_HOME;
});

const cacheDir = (): string => join(box.home, '.cache', 'agentx');
const cacheFiles = (): string[] => (existsSync(cacheDir()) ? readdirSync(cacheDir()) : []);
const ask = async (message: string, env: NodeJS.ProcessEnv = box.env): Promise<void> => {
  const r = await runCli([message], { cwd: box.cwd, env });
  expect(r.stderr).not.toMatch(/internal error|Error:/);
  expect(r.stdout).toContain(`You said: ${message}`);
  expect(r.code).toBe(0);
};

it('--version leaves a thin cache, the first one-shot the full one, which later runs reuse as it is; both private', async () => {
  const version = await runCli(['--version'], { cwd: box.cwd, env: box.env });
  expect(version.code).toBe(0);
  expect(cacheFiles()).toEqual([expect.stringMatching(/^code-[0-9a-f]{20}-v8-[\w.-]+-\w+\.thin\.cache$/)]);
  const thin = join(cacheDir(), cacheFiles()[0] ?? '');
  const thinBytes = readFileSync(thin);
  await ask('first');
  const full = join(cacheDir(), cacheFiles().find((f) => !f.endsWith('.thin.cache')) ?? '');
  expect(full).toMatch(/-v8-[\w.-]+-\w+\.cache$/);
  expect(cacheFiles()).toHaveLength(2);
  // The full cache holds what answering compiled: far more than --version's.
  expect(statSync(full).size).toBeGreaterThan(thinBytes.length + 100_000);
  for (const f of [full, thin]) expect(statSync(f).mode & 0o777).toBe(0o600);
  expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
  const before = { bytes: readFileSync(full), ino: statSync(full).ino, mtime: statSync(full).mtimeMs };
  await ask('second');
  expect((await runCli(['--version'], { cwd: box.cwd, env: box.env })).code).toBe(0);
  // Accepted by V8, so both are left alone: same files, same bytes.
  expect(statSync(full).ino).toBe(before.ino);
  expect(statSync(full).mtimeMs).toBe(before.mtime);
  expect(readFileSync(full).equals(before.bytes)).toBe(true);
  expect(readFileSync(thin).equals(thinBytes)).toBe(true);
});

it('a cache V8 rejects (garbage) still answers, and is replaced by a good one', async () => {
  await ask('warm');
  const file = join(cacheDir(), cacheFiles()[0] ?? '');
  const good = readFileSync(file);
  writeFileSync(file, Buffer.alloc(good.length, 7));
  await ask('after garbage');
  const now = readFileSync(file);
  expect(now.equals(Buffer.alloc(good.length, 7))).toBe(false);
  expect(now.length).toBeGreaterThan(100_000);
  expect(cacheFiles()).toHaveLength(1);
});

it('an unusable cache directory, or AGENTX_CODE_CACHE=off, only means no cache', async () => {
  // A file where the directory would be: nothing can be created there.
  writeFileSync(join(box.home, '.cache'), 'not a directory\n');
  await ask('no place for a cache');
  expect(readFileSync(join(box.home, '.cache'), 'utf8')).toBe('not a directory\n');
  const other = sandbox(emu.baseUrl);
  delete other.env.XDG_CACHE_HOME;
  box = other;
  await ask('cache off', { ...box.env, AGENTX_CODE_CACHE: 'off' });
  expect(existsSync(join(box.home, '.cache'))).toBe(false);
});

it('follows XDG_CACHE_HOME', async () => {
  const xdg = join(box.home, 'xdg-cache');
  await ask('xdg', { ...box.env, XDG_CACHE_HOME: xdg });
  expect(readdirSync(join(xdg, 'agentx'))).toHaveLength(1);
  expect(existsSync(join(box.home, '.cache'))).toBe(false);
});

it('is hidden from sandboxed commands, even when the project is the home directory', async () => {
  await ask('warm');
  mkdirSync(join(box.home, 'work'), { recursive: true });
  // Started in HOME, workspace-write makes HOME writable: the cache directory must still be out of reach.
  const r = await runCli(['run: ls ~/.cache/agentx; echo planted > ~/.cache/agentx/planted.cache'], { cwd: box.home, env: box.env });
  expect(r.code).toBe(0);
  expect(cacheFiles()).toHaveLength(1);
  expect(cacheFiles().some((f) => f.startsWith('planted'))).toBe(false);
});
