// The V8 code cache of bin/agentx.js: written once by a run that loaded a mode (a failed start leaves only a thin one),
// reused as it is, replaced when V8 rejects it, never needed (a broken or unwritable cache only
// means compiling), off with AGENTX_CODE_CACHE=off, and out of reach of sandboxed commands.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { createHmac } from 'node:crypto';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { REPO, runCli, sandbox, SHARED_STATE_KEY, type Sandbox } from './harness.ts';

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
  // This file tests the cache itself: each sandbox has its own, in the default place.
  delete box.env.XDG_CACHE_HOME;
});

const cacheDir = (): string => join(box.home, '.cache', 'agentx');
// A run that loads the bundle but answers nothing: it leaves the thin cache. (A lone --version
// never reads the bundle: bin/agentx.js answers it from dist/fixed-output.json.)
const startOnly = ['--no-such-flag'];
const cacheFiles = (): string[] => (existsSync(cacheDir()) ? readdirSync(cacheDir()) : []);
const ask = async (message: string, env: NodeJS.ProcessEnv = box.env): Promise<void> => {
  const r = await runCli([message], { cwd: box.cwd, env });
  expect(r.stderr).not.toMatch(/internal error|Error:/);
  expect(r.stdout).toContain(`You said: ${message}`);
  expect(r.code).toBe(0);
};

it('a failed start leaves a thin cache, the first one-shot the full one, which later runs reuse as it is; both private', async () => {
  const failed = await runCli(startOnly, { cwd: box.cwd, env: box.env });
  expect(failed.code).toBe(2);
  expect(cacheFiles()).toEqual([expect.stringMatching(/^code-[0-9a-f]{20}-v8-[\w.-]+-\w+\.thin\.cache$/)]);
  const thin = join(cacheDir(), cacheFiles()[0] ?? '');
  const thinBytes = readFileSync(thin);
  await ask('first');
  const full = join(cacheDir(), cacheFiles().find((f) => !f.endsWith('.thin.cache')) ?? '');
  expect(full).toMatch(/-v8-[\w.-]+-\w+\.cache$/);
  expect(cacheFiles()).toHaveLength(2);
  // The full cache holds what answering compiled: far more than a failed start's.
  expect(statSync(full).size).toBeGreaterThan(thinBytes.length + 100_000);
  for (const f of [full, thin]) expect(statSync(f).mode & 0o777).toBe(0o600);
  expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
  const before = { bytes: readFileSync(full), ino: statSync(full).ino, mtime: statSync(full).mtimeMs };
  await ask('second');
  expect((await runCli(startOnly, { cwd: box.cwd, env: box.env })).code).toBe(2);
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

it('is hidden from sandboxed commands, even when the project is the home directory and this is the first run', async () => {
  // The first run ever in this HOME is the one whose command tries to plant a cache: the loader
  // creates the directory before anything runs, so the sandbox hides it.
  const r = await runCli(['run: mkdir -p ~/.cache/agentx; echo planted > ~/.cache/agentx/planted.cache; ls -la ~/.cache/agentx'], {
    cwd: box.home,
    env: box.env,
  });
  expect(r.code).toBe(0);
  expect(cacheFiles().some((f) => f.startsWith('planted'))).toBe(false);
  expect(cacheFiles()).toHaveLength(1);
});

describe('what it refuses to use', () => {
  /** The cache names the loader will use for this build with no Node flags. */
  const names = (): { full: string; thin: string; wrappedLength: number } => {
    const source = readFileSync(join(REPO, 'dist/agentx.cjs'), 'utf8');
    const build = /^\/\*agentx-build:([0-9a-f]+)\*\//.exec(source)?.[1] ?? '';
    const base = join(cacheDir(), `code-${build}-v8-${process.versions.v8}-${process.arch}`);
    return { full: `${base}.cache`, thin: `${base}.thin.cache`, wrappedLength: Module.wrap(source).length };
  };

  /** A cache V8 would accept for agentx's script (same length), whose code writes `marker`. */
  function evilCache(wrappedLength: number, marker: string): Buffer {
    // Called by the loader like agentx's own wrapped script: (exports, require, module, …).
    const body = `(function(exports,require){require("node:fs").writeFileSync(${JSON.stringify(marker)},"owned")})`;
    const padded = body + ' '.repeat(wrappedLength - body.length);
    const out = join(box.home, 'evil.bin');
    const make = `const vm=require("node:vm");const fs=require("node:fs");const s=new vm.Script(fs.readFileSync(0,"utf8"));fs.writeFileSync(${JSON.stringify(out)},s.createCachedData())`;
    execFileSync(process.execPath, ['-e', make], { input: padded, env: { PATH: process.env.PATH } });
    return readFileSync(out);
  }

  it('a full cache that is not a regular file: neither it nor a planted thin one is used, nothing is written', async () => {
    const { full, thin, wrappedLength } = names();
    const marker = join(box.home, 'pwned');
    mkdirSync(full, { recursive: true });
    writeFileSync(thin, evilCache(wrappedLength, marker), { mode: 0o600 });
    const r = await runCli(startOnly, { cwd: box.cwd, env: box.env });
    expect(r.stderr).toMatch(/^agentx: unknown option/);
    expect(existsSync(marker)).toBe(false);
    await ask('still answers');
    expect(existsSync(marker)).toBe(false);
    expect(statSync(full).isDirectory()).toBe(true);
  });

  /** The file format of bin/agentx.js: magic, HMAC-SHA256 (key derived from state.key) over name, build, length and data, data. */
  function withMac(file: string, data: Buffer, stateKeyHex: string): Buffer {
    const source = readFileSync(join(REPO, 'dist/agentx.cjs'), 'utf8');
    const build = /^\/\*agentx-build:([0-9a-f]+)\*\//.exec(source)?.[1] ?? '';
    const key = createHmac('sha256', Buffer.from(stateKeyHex.trim(), 'hex')).update('agentx code cache v1').digest();
    const mac = createHmac('sha256', key)
      .update(`${basename(file)}\0${build}\0${source.length}\0`)
      .update(data)
      .digest();
    return Buffer.concat([Buffer.from('AXCC1\0\0\0'), mac, data]);
  }

  it('a forged cache, a regular file of ours without a MAC made with the state key, is not run, and is replaced', async () => {
    const { thin, full, wrappedLength } = names();
    const marker = join(box.home, 'pwned');
    mkdirSync(cacheDir(), { recursive: true, mode: 0o700 });
    const evil = evilCache(wrappedLength, marker);
    writeFileSync(thin, evil, { mode: 0o600 });
    await runCli(startOnly, { cwd: box.cwd, env: box.env });
    expect(existsSync(marker)).toBe(false);
    // A MAC under another key (another machine's, or a guess) is no better.
    writeFileSync(full, withMac(full, evil, 'ab'.repeat(32)), { mode: 0o600 });
    await ask('still answers');
    expect(existsSync(marker)).toBe(false);
    // Replaced by agentx's own, which verifies.
    const now = readFileSync(full);
    expect(now.subarray(0, 8).toString('latin1')).toBe('AXCC1\0\0\0');
    expect(now.equals(withMac(full, now.subarray(40), SHARED_STATE_KEY))).toBe(true);
  });

  it("the planted cache would have run (so the tests above can fail): accepted when it carries the MAC of the person's key", async () => {
    const { thin, wrappedLength } = names();
    const marker = join(box.home, 'pwned');
    mkdirSync(cacheDir(), { recursive: true, mode: 0o700 });
    const keyHex = readFileSync(join(box.home, '.local/state/agentx/state.key'), 'utf8');
    writeFileSync(thin, withMac(thin, evilCache(wrappedLength, marker), keyHex), { mode: 0o600 });
    await runCli(startOnly, { cwd: box.cwd, env: box.env });
    expect(readFileSync(marker, 'utf8')).toBe('owned');
  });

  it('a cache directory others can write to, or a link in place of a cache file, is not used', async () => {
    const { full, thin } = names();
    mkdirSync(cacheDir(), { recursive: true });
    chmodSync(cacheDir(), 0o777);
    await ask('open directory');
    expect(cacheFiles()).toEqual([]);
    chmodSync(cacheDir(), 0o700);
    writeFileSync(join(box.home, 'elsewhere.cache'), 'x');
    symlinkSync(join(box.home, 'elsewhere.cache'), full);
    symlinkSync(join(box.home, 'elsewhere.cache'), thin);
    await ask('links');
    expect(readFileSync(join(box.home, 'elsewhere.cache'), 'utf8')).toBe('x');
    expect(lstatSync(full).isSymbolicLink()).toBe(true);
  });
});
