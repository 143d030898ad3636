// The peer: Codex CLI from npm, pinned, installed on demand into bench/.peer (git-ignored, never a
// dependency of agentx), pointed at the emulator through a custom model provider in a temporary
// CODEX_HOME. Every failure becomes { ok: false, reason } so the bench still reports agentx rows.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './lib.mjs';

export const CODEX_VERSION = '0.171.0';
const PREFIX = join(REPO, 'bench/.peer');

const TRIPLES = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
};

function installedVersion() {
  try {
    return JSON.parse(readFileSync(join(PREFIX, 'node_modules/@openai/codex/package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * The platform binary inside the npm package. The bench runs it directly rather than through the
 * package's `codex` node launcher: that launcher is one more Node process (startup and memory) in
 * front of every codex run, so skipping it only flatters the peer.
 */
/** @returns {{ bin: string, reason?: undefined } | { reason: string, bin?: undefined }} */
function nativeBinary() {
  const key = `${process.platform}-${process.arch}`;
  const triple = TRIPLES[key];
  if (!triple) return { reason: `no Codex binary for ${key}` };
  const pkg = join(PREFIX, `node_modules/@openai/codex-${key}`);
  const bin = join(pkg, 'vendor', triple, 'bin', 'codex');
  return existsSync(bin) ? { bin } : { reason: `the platform package @openai/codex-${key} installed no binary` };
}

/**
 * Installs the pinned Codex CLI if needed; returns { ok, bin, version } or { ok: false, reason }.
 * @returns {{ ok: true, bin: string, version: string, reason?: undefined } | { ok: false, reason: string, bin?: undefined, version?: undefined }}
 */
export function ensurePeer(log = (m) => process.stderr.write(`${m}\n`)) {
  if (process.env.BENCH_NO_PEER) return { ok: false, reason: 'disabled by BENCH_NO_PEER' };
  if (installedVersion() !== CODEX_VERSION || nativeBinary().reason) {
    log(`installing @openai/codex@${CODEX_VERSION} into bench/.peer (once; about 150 MB download)…`);
    mkdirSync(PREFIX, { recursive: true });
    // A package.json of its own keeps npm from walking up into the agentx project.
    if (!existsSync(join(PREFIX, 'package.json'))) writeFileSync(join(PREFIX, 'package.json'), '{"private":true}\n');
    const r = spawnSync(
      'npm',
      ['install', '--prefix', PREFIX, `@openai/codex@${CODEX_VERSION}`, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 5 * 60_000,
      },
    );
    if (r.status !== 0)
      return { ok: false, reason: `npm install @openai/codex@${CODEX_VERSION} failed: ${firstLine(r.stderr || r.error?.message || `exit ${r.status}`)}` };
  }
  const native = nativeBinary();
  if (native.bin === undefined) return { ok: false, reason: native.reason };
  const v = spawnSync(native.bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (v.status !== 0) return { ok: false, reason: `codex --version failed: ${firstLine(v.stderr || v.error?.message || `exit ${v.status}`)}` };
  return { ok: true, bin: native.bin, version: v.stdout.trim() };
}

const firstLine = (s) =>
  String(s)
    .trim()
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.slice(0, 200) ?? 'unknown error';

/**
 * A fresh CODEX_HOME whose config.toml selects the emulator as a custom Responses provider.
 * Keys checked against codex 0.171 (ModelProviderInfo: base_url, env_key, wire_api,
 * request_max_retries, stream_max_retries, supports_websockets). Codex defaults are kept except
 * what would reach the internet (analytics, plugin marketplace sync, ChatGPT apps, update
 * check, the app-server daemon download): there is no internet here, and waiting on it would only slow the peer down.
 */
export function codexHome(baseUrl, makeDir = () => mkdtempSync(join(tmpdir(), 'agentx-bench-codex-home-'))) {
  const home = makeDir();
  const config = [
    'model = "gpt-5"',
    'model_provider = "emulator"',
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    // The TUI otherwise downloads and starts an app-server daemon before it takes input.
    'daemon_auto_start = false',
    '',
    '[model_providers.emulator]',
    'name = "agentx bench emulator"',
    `base_url = "${baseUrl}"`,
    'wire_api = "responses"',
    'env_key = "BENCH_EMULATOR_KEY"',
    'supports_websockets = false',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
  writeFileSync(join(home, 'config.toml'), config);
  return home;
}

/** Environment for codex: its own HOME/CODEX_HOME, the provider key, nothing from the developer. */
export function codexEnv(home) {
  return { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, SHELL: '/bin/bash', LANG: 'C.UTF-8', BENCH_EMULATOR_KEY: 'bench-key' };
}

export const codexExecArgs = (prompt) => ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--color', 'never', prompt];
export const codexResumeArgs = (prompt) => ['exec', 'resume', '--last', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt];
