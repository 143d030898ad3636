// The invariants every fault check asserts on the artefacts agentx leaves: session files that
// parse, a ledger without repeated side effects, no orphaned commands, no secret anywhere,
// private file modes, no stack traces shown to the user.
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCheckpoint } from '../../../src/store/checkpoint.ts';
import { parseState, type SessionState } from '../../../src/store/state.ts';
import { CHECKPOINT_FILE, STATE_FILE } from '../../../src/store/store.ts';
import type { Tally } from './env.ts';

export function readIf(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** One-shot state files (not the temp files of their atomic writes, which a kill may leave). */
export const isolatedFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith(`${STATE_FILE}.oneshot-`) && !f.includes('.tmp-'));
export const tempFiles = (dir: string): string[] => readdirSync(dir).filter((f) => /^\.agentx_.*\.tmp-\d+-/.test(f));
export const corruptFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.includes('.corrupt-'));

/**
 * Every state-format file in `dir` (main state, one-shot files) and the checkpoint must be
 * complete JSON that agentx reads back cleanly: a crash may lose the last transition, never
 * leave a torn or half-valid file. Returns the main state when there is one.
 */
export function checkSessionFiles(dir: string, tally: Tally, where: string): SessionState | undefined {
  let main: SessionState | undefined;
  for (const name of [STATE_FILE, ...isolatedFiles(dir)]) {
    const text = readIf(join(dir, name));
    if (text === undefined) continue;
    tally.count('state files parsed');
    let strict = true;
    try {
      JSON.parse(text);
    } catch {
      strict = false;
    }
    const parsed = parseState(text);
    if (!tally.expect(`${where}: ${name} is complete JSON`, strict, text.slice(0, 80))) continue;
    if (!tally.expect(`${where}: ${name} parses`, parsed.ok, parsed.ok ? '' : parsed.reason)) continue;
    if (!parsed.ok) continue;
    tally.expect(`${where}: ${name} has no invalid fields`, parsed.warnings.length === 0, parsed.warnings.join(', '));
    if (name === STATE_FILE) main = parsed.state;
  }
  const cp = readIf(join(dir, CHECKPOINT_FILE));
  if (cp !== undefined) {
    tally.count('checkpoint files parsed');
    const parsed = parseCheckpoint(cp);
    tally.expect(`${where}: checkpoint parses`, parsed.ok, parsed.ok ? '' : parsed.reason);
  }
  tally.expect(`${where}: no file was moved aside as corrupt`, corruptFiles(dir).length === 0, corruptFiles(dir).join(', '));
  return main;
}

/** Lines of the ledger file, counted. */
export function ledgerCounts(path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of (readIf(path) ?? '').split('\n')) {
    if (line !== '') counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}

/** Command lines of live processes mentioning `marker` (commands and their supervisors). */
export function processesWith(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  // Zombies are dead already; they only wait for a parent to reap them.
  return out.split('\n').filter((l) => l.includes(marker) && !/^\s*Z/.test(l));
}

export async function waitUntil(check: () => boolean, timeoutMs: number, stepMs = 25): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Files below `root`, recursively (symlinks not followed). */
export function walkFiles(root: string): string[] {
  const files: string[] = [];
  const visit = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) visit(p);
      else if (st.isFile()) files.push(p);
    }
  };
  visit(root);
  return files;
}

/**
 * Greps every file below `roots` and every captured stream for `secret`. `allowed` files (the
 * config file the key was deliberately saved to) are skipped. Counts what it looked at.
 */
export function scanForSecret(secret: string, roots: string[], streams: Record<string, string>, tally: Tally, allowed: string[] = []): void {
  for (const root of roots) {
    for (const file of walkFiles(root)) {
      if (allowed.includes(file)) continue;
      tally.count('artefacts scanned for the key');
      let data: Buffer;
      try {
        data = readFileSync(file);
      } catch {
        continue;
      }
      tally.expect(`the API key does not appear in ${file}`, !data.includes(secret));
    }
  }
  for (const [name, text] of Object.entries(streams)) {
    tally.count('artefacts scanned for the key');
    tally.expect(`the API key does not appear in ${name}`, !text.includes(secret));
  }
}

export function modeOf(path: string): number {
  return lstatSync(path).mode & 0o777;
}

/** A JavaScript stack trace (or a Node internal frame) in text meant for the user. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .*(?:\(.*:\d+:\d+\)|:\d+:\d+)$/m.test(text) || text.includes('node:internal');
}
