// Reading and writing the state file's text. parseState never throws: a file it cannot use is
// reported with a one-line reason so the store can move it aside (SPEC §3.1).

import { MAX_STATE_FILE_BYTES, STATE_KEYS, STATE_VERSION, emptyState } from './types.ts';
import type { SessionSnapshot, SessionState } from './types.ts';
import { isRecord } from '../lib/guards.ts';
import { Issues, StateFormatError, normalizeSnapshot, withInvalidFields } from './normalize.ts';
import type { Raw } from './normalize.ts';
import { migrateCliState } from './migrate.ts';
import { isPlainResponseId } from '../lib/text.ts';

export type ParseResult =
  | {
      ok: true;
      state: SessionState;
      /** Read from an older format (plain id or AgentX CLI); the next save writes version 1. */
      migrated: boolean;
      /** Fields that were malformed and reset to defaults (raw values kept in `invalid_fields`). */
      warnings: string[];
    }
  | { ok: false; reason: string };

function fail(reason: string): never {
  throw new StateFormatError(reason);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** Control characters (other than whitespace) or undecodable bytes (U+FFFD) in the first KiB. */
function looksBinary(text: string): boolean {
  const end = Math.min(text.length, 1024);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0xfffd) return true;
  }
  return false;
}

/**
 * Deeper than anything agentx writes (about 8 levels) by a wide margin, and far below where
 * JSON.stringify runs out of stack (a few thousand levels). Without this bound a deeply nested
 * file parsed fine (JSON.parse does not recurse) but kept its unknown or invalid values, and
 * every later save threw "Maximum call stack size exceeded": the session silently stopped
 * being saved. Such a file is treated as malformed instead (moved aside, fresh session).
 */
export const MAX_STATE_DEPTH = 100;

/** True when `value` nests arrays/objects deeper than `max` levels; iterative, so it cannot overflow. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [v, depth] = item;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function fromPlainId(id: string): ParseResult {
  return { ok: true, state: { ...emptyState(), response_id: id }, migrated: true, warnings: [] };
}

/** Parses the backup nested in a state; a broken backup only loses the undo, not the session. */
function parseBackup(value: unknown, issues: Issues): SessionSnapshot | null {
  if (value === null || value === undefined) return null;
  if (!isRecord(value)) {
    issues.reset('rollback_backup', value);
    return null;
  }
  try {
    const nested = new Issues();
    const snapshot = withInvalidFields(normalizeSnapshot(value, nested), nested);
    if (nested.warnings.length > 0) issues.warnings.push(...nested.warnings.map((w) => `rollback_backup.${w}`));
    return snapshot;
  } catch {
    issues.reset('rollback_backup', value);
    return null;
  }
}

function parseObject(raw: Raw): ParseResult {
  const version = raw.version;
  let legacy = false;
  let source = raw;
  if (version === undefined) {
    legacy = true;
    source = migrateCliState(raw);
  } else if (typeof version === 'number' && version > STATE_VERSION) {
    fail(`written by a newer agentx (format version ${version})`);
  } else if (version !== STATE_VERSION) {
    // Quoted in the one-line notice, so a huge or nested value must not flood the terminal.
    const shown = JSON.stringify(version);
    fail(`unknown format version ${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}`);
  }
  const issues = new Issues();
  const snapshot = normalizeSnapshot(source, issues);
  const backup = parseBackup(source.rollback_backup, issues);
  const state: SessionState = withInvalidFields({ ...snapshot, rollback_backup: backup }, issues);
  return { ok: true, state, migrated: legacy, warnings: issues.warnings };
}

function parseUnsafe(text: string, maxChars: number): ParseResult {
  if (text.length > maxChars) fail('file is too large');
  // Editors on some systems prepend a byte-order mark; it is not part of the JSON.
  const body = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).trim();
  if (body === '') fail('file is empty');
  if (isPlainResponseId(body)) return fromPlainId(body);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    if (looksBinary(body)) fail('file holds binary data');
    fail(/^[{["]/.test(body) ? 'invalid JSON (truncated or corrupted)' : 'not JSON and not a response id');
  }
  if (typeof value === 'string' && isPlainResponseId(value)) return fromPlainId(value);
  if (!isRecord(value)) fail(`expected a JSON object, found ${describe(value)}`);
  if (nestedDeeperThan(value, MAX_STATE_DEPTH)) fail(`nested more than ${MAX_STATE_DEPTH} levels deep`);
  return parseObject(value);
}

/** `maxChars` is raised only to repair an oversized file (store.ts trims it right after). */
export function parseState(text: string, maxChars: number = MAX_STATE_FILE_BYTES): ParseResult {
  try {
    return parseUnsafe(text, maxChars);
  } catch (error) {
    return { ok: false, reason: error instanceof StateFormatError ? error.message : 'unreadable session state' };
  }
}

/** Known fields in a fixed order, then unknown ones sorted, so rewrites diff cleanly. */
function ordered(state: SessionSnapshot, backup: Raw | null | undefined): Raw {
  const out: Raw = {};
  for (const key of STATE_KEYS) {
    if (key === 'rollback_backup') {
      if (backup !== undefined) out[key] = backup;
    } else {
      out[key] = state[key];
    }
  }
  const known = new Set<string>(STATE_KEYS);
  const extras = Object.keys(state)
    .filter((k) => !known.has(k))
    .sort();
  for (const key of extras) out[key] = state[key];
  return out;
}

/** The object the state file holds, keys in file order (serializeState is its pretty JSON). */
export function stateForDisk(state: SessionState): Raw {
  const backup = state.rollback_backup === null ? null : ordered(state.rollback_backup, undefined);
  return ordered(state, backup);
}

export function serializeState(state: SessionState): string {
  return `${JSON.stringify(stateForDisk(state), null, 2)}\n`;
}
