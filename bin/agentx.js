#!/usr/bin/env node
// Starts dist/agentx.cjs with a V8 code cache. Node 20 caches compiled code only for scripts
// (vm.Script cachedData), and compiling agentx and the OpenAI SDK was the largest part of a
// one-shot's startup: with the cache a plain one-shot takes about a third less wall time
// (BENCHMARKS.md, "Where a one-shot's time goes").
//
// The cache is code that agentx runs outside the sandbox, and V8 checks little more than the
// source's length before running it, so nobody else may be able to put one there:
// - It lives in $XDG_CACHE_HOME/agentx (~/.cache/agentx), created here (0700) before anything
//   runs, so that the sandbox, which can only hide what exists, always hides it from model
//   commands (src/sandbox/policy.ts). The directory must be a real directory, ours, writable by
//   us alone; cache files must be regular files, ours, opened without following links, and are
//   written to a new temp file (O_EXCL) and renamed. Anything else: no cache, nothing written.
// - Files are named by a hash of the build, the V8 version and the Node flags (another flag set
//   would make V8 reject the cache, and two alternating sets would rewrite it every run).
// - Two files: the full cache, written at the exit of the first run that answered (the front-ends
//   set `worthy`: it compiled what answering needs), and a thin one from a run that did not
//   (`agentx --version`, a failed start), which spares only the parse of the whole script. A run
//   prefers the full one; a run that answered with only the thin one writes the full one.
// - Each file carries an HMAC-SHA256 (keyed by a key derived from state.key in the private state
//   store, which the sandbox hides and which the loader creates, 0600, before anything runs) over
//   the file's name (build hash, V8 version, flags), the bundle's build id and length, and the V8
//   data: a cache written by anyone without the key — a command that reached the directory, a
//   restored backup from another machine — is not given to V8, and is replaced at exit.
//   (The bundle itself is trusted: whoever can change dist/ can run code anyway; hashing all of
//   it on every start would cost more than the cache saves, so its build id stands for it.)
// - A cache V8 rejects is replaced at exit. Any failure only means no cache. AGENTX_CODE_CACHE=off
//   turns it off.
// Type-checked as JavaScript with JSDoc types (tsconfig.bin.json, run by scripts/check.mjs).
'use strict';
// Fast path (startup goal: `agentx --version` within 1.3x `node -e 0`): a lone --version or --help
// is answered from dist/fixed-output.json, which the build writes from the bundle's own output,
// without reading or compiling the 1.2 MB bundle. Anything unexpected (no file, other arguments)
// takes the normal path below, which prints the same text.
const loneArg = process.argv.length === 3 ? process.argv[2] : undefined;
if (loneArg !== undefined && ['--version', '-v', '--help', '-h'].includes(loneArg)) {
  let text;
  try {
    const fixed = JSON.parse(require('node:fs').readFileSync(`${__dirname}/../dist/fixed-output.json`, 'utf8'));
    text = ['--help', '-h'].includes(loneArg) ? fixed.help : fixed.version;
  } catch {
    text = undefined;
  }
  if (typeof text === 'string') {
    // Straight to fd 1: creating process.stdout would load Node's stream stack (see src/main.ts).
    const bytes = Buffer.from(text);
    let offset = 0;
    try {
      while (offset < bytes.length) offset += require('node:fs').writeSync(1, bytes, offset);
    } catch {
      process.stdout.write(bytes.subarray(offset));
    }
    // @ts-expect-error -- TS1108: a CommonJS module may return at its top level (Node wraps it in a function)
    return;
  }
}
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const bundle = path.join(__dirname, '..', 'dist', 'agentx.cjs');
const source = fs.readFileSync(bundle, 'utf8');

/**
 * FNV-1a, 32 bits: names a flag set in a file name (not a security measure).
 * @param {string} text
 */
function shortHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** The cache directory, created if missing, when it is safe to use; undefined otherwise. */
function cacheDir() {
  if (process.env.AGENTX_CODE_CACHE === 'off' || typeof process.getuid !== 'function') return undefined;
  const xdg = process.env.XDG_CACHE_HOME;
  const home = process.env.HOME || require('node:os').homedir();
  const dir = xdg && path.isAbsolute(xdg) ? path.join(xdg, 'agentx') : home && path.isAbsolute(home) ? path.join(home, '.cache', 'agentx') : undefined;
  if (!dir) return undefined;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid() || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * A file system error's code ('ENOENT', …), if it has one.
 * @param {unknown} err
 */
function errorCode(err) {
  return typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
}

/**
 * The file's bytes if it is a regular file of ours (0600-like); null if absent; undefined if unusable.
 * @param {string} file
 * @returns {Buffer | null | undefined}
 */
function readPrivate(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    return errorCode(err) === 'ENOENT' ? null : undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The cache's MAC key: derived from `<private state>/state.key` (the seal key of src/store/seal.ts,
 * same path rules as src/paths.ts), created the way seal.ts creates it when missing. Undefined
 * when it cannot be had: then no cache is used or written.
 */
function macKey() {
  const home = process.env.HOME || require('node:os').homedir();
  const xdg = process.env.XDG_STATE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : home && path.isAbsolute(home) ? path.join(home, '.local', 'state') : undefined;
  if (!base) return undefined;
  const file = path.join(base, 'agentx', 'state.key');
  const crypto = require('node:crypto');
  for (let attempt = 0; attempt < 2; attempt++) {
    const bytes = readPrivate(file);
    if (bytes === undefined) return undefined;
    if (bytes !== null) {
      const text = bytes.toString('utf8').trim();
      if (!/^[0-9a-f]{64}$/.test(text) || (fs.statSync(file).mode & 0o077) !== 0) return undefined;
      return crypto.createHmac('sha256', Buffer.from(text, 'hex')).update('agentx code cache v1').digest();
    }
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
      fs.writeFileSync(tmp, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      try {
        fs.linkSync(tmp, file);
      } catch (err) {
        if (errorCode(err) !== 'EEXIST') return undefined;
      } finally {
        fs.unlinkSync(tmp);
      }
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const MAGIC = Buffer.from('AXCC1\0\0\0');
const MAC_BYTES = 32;

/**
 * @param {Buffer} key
 * @param {string} file
 * @param {Buffer} data
 */
function cacheMac(key, file, data) {
  return require('node:crypto').createHmac('sha256', key)
    .update(`${path.basename(file)}\0${build ? build[1] : ''}\0${source.length}\0`).update(data).digest();
}

/**
 * The V8 data of a cache file: null if absent; undefined if unusable (not a regular file of ours);
 * FORGED if it is ours but its MAC does not verify (then it is replaced, never run).
 */
const FORGED = Symbol('forged');
/**
 * @param {string} file
 * @returns {Buffer | null | undefined | typeof FORGED}
 */
function readCache(file) {
  const bytes = readPrivate(file);
  if (bytes === null || bytes === undefined) return bytes;
  if (key === undefined) return undefined; // never so: a cache name exists only with a key
  const head = MAGIC.length + MAC_BYTES;
  if (bytes.length <= head || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return FORGED;
  const data = bytes.subarray(head);
  const expected = cacheMac(key, file, data);
  return require('node:crypto').timingSafeEqual(expected, bytes.subarray(MAGIC.length, head)) ? data : FORGED;
}

const build = /^\/\*agentx-build:([0-9a-f]+)\*\//.exec(source);
const dir = cacheDir();
const key = dir && build ? macKey() : undefined;
const flags = [...process.execArgv, process.env.NODE_OPTIONS || ''].join('\0');
const base = dir && build && key ? path.join(dir, `code-${build[1]}-v8-${process.versions.v8}-${process.arch}${flags === '' ? '' : `-f${shortHash(flags)}`}`) : undefined;
const full = base && `${base}.cache`;
const thin = base && `${base}.thin.cache`;
const fullData = full ? readCache(full) : undefined;
const verified = (/** @type {unknown} */ data) => (Buffer.isBuffer(data) ? data : undefined);
// The thin cache only stands in for a full one that does not exist (not for one that is unusable).
const cached = verified(fullData) || (fullData === null && thin ? verified(readCache(thin)) : undefined);
const usable = base !== undefined && fullData !== undefined;
const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cached });
const state = { worthy: false };
globalThis.__agentxCodeCache = state;
if (usable) {
  process.once('exit', () => {
    const accepted = cached !== undefined && script.cachedDataRejected !== true;
    if (accepted && (fullData || !state.worthy)) return;
    const file = state.worthy ? full : thin;
    // (usable: both names and the key exist)
    if (file === undefined || key === undefined) return;
    if (!state.worthy && readCache(file) === undefined) return;
    try {
      const data = script.createCachedData();
      const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
      try {
        fs.writeFileSync(tmp, Buffer.concat([MAGIC, cacheMac(key, file, data), data]), { mode: 0o600, flag: 'wx' });
        fs.renameSync(tmp, file);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    } catch {
      // No cache this time: the next run compiles again.
    }
  });
}
const mod = { exports: {} };
script.runInThisContext()(mod.exports, Module.createRequire(bundle), mod, bundle, path.dirname(bundle));
