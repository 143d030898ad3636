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
// - A cache V8 rejects is replaced at exit. Any failure only means no cache. AGENTX_CODE_CACHE=off
//   turns it off.
'use strict';
// Fast path (startup goal: `agentx --version` within 1.3x `node -e 0`): a lone --version or --help
// is answered from dist/fixed-output.json, which the build writes from the bundle's own output,
// without reading or compiling the 1.2 MB bundle. Anything unexpected (no file, other arguments)
// takes the normal path below, which prints the same text.
if (process.argv.length === 3 && ['--version', '-v', '--help', '-h'].includes(process.argv[2])) {
  let text;
  try {
    const fixed = JSON.parse(require('node:fs').readFileSync(`${__dirname}/../dist/fixed-output.json`, 'utf8'));
    text = ['--help', '-h'].includes(process.argv[2]) ? fixed.help : fixed.version;
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
    return;
  }
}
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const bundle = path.join(__dirname, '..', 'dist', 'agentx.cjs');
const source = fs.readFileSync(bundle, 'utf8');

/** FNV-1a, 32 bits: names a flag set in a file name (not a security measure). */
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

/** The file's bytes if it is a regular file of ours; null if absent; undefined if unusable. */
function readCache(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    return err && err.code === 'ENOENT' ? null : undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.uid !== process.getuid() || (st.mode & 0o022) !== 0) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

const dir = cacheDir();
const build = /^\/\*agentx-build:([0-9a-f]+)\*\//.exec(source);
const flags = [...process.execArgv, process.env.NODE_OPTIONS || ''].join('\0');
const base = dir && build ? path.join(dir, `code-${build[1]}-v8-${process.versions.v8}-${process.arch}${flags === '' ? '' : `-f${shortHash(flags)}`}`) : undefined;
const full = base && `${base}.cache`;
const thin = base && `${base}.thin.cache`;
const fullData = full ? readCache(full) : undefined;
// The thin cache only stands in for a full one that does not exist (not for one that is unusable).
const cached = fullData || (fullData === null && thin ? readCache(thin) || undefined : undefined);
const usable = base !== undefined && fullData !== undefined;
const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cached });
const state = { worthy: false };
globalThis.__agentxCodeCache = state;
if (usable) {
  process.once('exit', () => {
    const accepted = cached !== undefined && script.cachedDataRejected !== true;
    if (accepted && (fullData || !state.worthy)) return;
    const file = state.worthy ? full : thin;
    if (!state.worthy && readCache(thin) === undefined) return;
    try {
      const data = script.createCachedData();
      const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
      try {
        fs.writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
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
