#!/usr/bin/env node
// Starts dist/agentx.cjs with a V8 code cache. Node 20 caches compiled code only for scripts
// (vm.Script cachedData), and compiling agentx and the OpenAI SDK was the largest part of a
// one-shot's startup: with the cache a plain one-shot takes about a third less wall time
// (BENCHMARKS.md, "Where a one-shot's time goes").
//
// - The cache lives in $XDG_CACHE_HOME/agentx (~/.cache/agentx), named by the build of agentx
//   and the V8 version; AGENTX_CODE_CACHE=off disables it. It is code that runs outside the sandbox,
//   so the sandbox hides that directory from model commands (src/sandbox/policy.ts).
// - Two files: the full cache, written at the exit of the first run that loaded a mode (main.ts
//   sets `worthy`: it compiled what answering needs), and a thin one from a run that did not
//   (`agentx --version`), which spares only the parse of the whole script. A run prefers the full
//   one; a run that loads a mode with only the thin one writes the full one. Written to a temp
//   file and renamed, so concurrent runs never read half a cache; any failure only means no cache.
// - A cache V8 rejects (another Node, another V8 flag) is replaced at exit.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const bundle = path.join(__dirname, '..', 'dist', 'agentx.cjs');
const source = fs.readFileSync(bundle, 'utf8');

/** The cache files' common path, without suffix; undefined when there is to be no cache. */
function cacheBase() {
  if (process.env.AGENTX_CODE_CACHE === 'off') return undefined;
  const build = /^\/\*agentx-build:([0-9a-f]+)\*\//.exec(source);
  const xdg = process.env.XDG_CACHE_HOME;
  const home = process.env.HOME || require('node:os').homedir();
  const dir = xdg && path.isAbsolute(xdg) ? path.join(xdg, 'agentx') : home ? path.join(home, '.cache', 'agentx') : undefined;
  if (!build || !dir) return undefined;
  return path.join(dir, `code-${build[1]}-v8-${process.versions.v8}-${process.arch}`);
}

function readOrUndefined(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

const base = cacheBase();
const full = base && `${base}.cache`;
const thin = base && `${base}.thin.cache`;
const fullData = full && readOrUndefined(full);
const cached = fullData ?? (thin && readOrUndefined(thin));
const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cached });
const state = { worthy: false };
globalThis.__agentxCodeCache = state;
if (base) {
  process.once('exit', () => {
    const accepted = cached !== undefined && script.cachedDataRejected !== true;
    // A run that loaded a mode wants the full cache; --version and the like are content with any.
    if (accepted && (fullData !== undefined || !state.worthy)) return;
    const file = state.worthy ? full : thin;
    try {
      const data = script.createCachedData();
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.tmp-${process.pid}`;
      try {
        fs.writeFileSync(tmp, data, { mode: 0o600 });
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
