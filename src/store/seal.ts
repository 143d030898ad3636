// Seals on agentx's own files in the project directory (issue 22 §5): the state file, the
// checkpoint, one-shot files and the session lock carry an HMAC-SHA256 over their content and
// their absolute path, keyed by `state.key` in the private state store (0600, hidden from
// sandboxed commands like the rest of that store). A file agentx did not write — a command, a
// patch, an MCP server, a copy from another directory or machine, a file committed in a cloned
// repository — cannot carry a seal that verifies, so nothing in it can run or be sent.
//
// The seal is the first member of the JSON object, on its own line:
//   {
//     "agentx_seal": "hmac-sha256:<64 hex>",
//     ...the rest, exactly as written...
// It covers the text as it was before the seal went in (the brace and what follows the seal) and the path, so verifying needs
// no re-serialization, and the file stays JSON that older readers accept (an unknown field).
// The lock, which is not JSON, carries the seal as its last line.
//
// The key is process-wide: the front-end names its file once (useStateKey) before any state is
// read. With no key configured (unit tests of the store), nothing is sealed or checked.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeCrypto } from '../lib/builtins.ts';
import { createFileExclusive } from '../lib/atomic-file.ts';
import { errorCode } from '../lib/fsutil.ts';

export const SEAL_FIELD = 'agentx_seal';
const PREFIX = `{\n  "${SEAL_FIELD}": "hmac-sha256:`;
const SEAL_LINE = new RegExp(`^\\{\\n  "${SEAL_FIELD}": "hmac-sha256:([0-9a-f]{64})",`);
const LOCK_SEAL_LINE = /\nseal:([0-9a-f]{64})\n$/;

export type Unsealed =
  /** Written by agentx with this key, for this path: `text` is the file without its seal. */
  | { status: 'sealed'; text: string }
  /** No seal at all: an older agentx, the AgentX CLI — or anything else. Only its context may be used. */
  | { status: 'unsigned'; text: string }
  /** A seal that does not verify, or one out of place: not agentx's file. */
  | { status: 'forged' };

let keyFile: string | undefined;
let key: Buffer | undefined;

/** Names the key file (`<private state>/state.key`); it is created on first use. */
export function useStateKey(file: string | undefined): void {
  keyFile = file;
  key = undefined;
}

export function sealingEnabled(): boolean {
  return keyFile !== undefined;
}

/** Reads the key, creating it complete if there is none (createFileExclusive: another process may win). */
function stateKey(): Buffer | undefined {
  if (keyFile === undefined) return undefined;
  if (key !== undefined) return key;
  const file = keyFile;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const text = fs.readFileSync(file, 'utf8').trim();
      if (/^[0-9a-f]{64}$/.test(text)) return (key = Buffer.from(text, 'hex'));
      throw new Error(`${file} is not an agentx state key (64 hex digits); remove it to make a new one`);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Complete or absent: when another process won the race, its key is read on the next pass.
    createFileExclusive(file, `${nodeCrypto().randomBytes(32).toString('hex')}\n`, 0o600);
  }
  throw new Error(`could not create the state key ${file}`);
}

function mac(k: Buffer, filePath: string, body: string): string {
  return nodeCrypto().createHmac('sha256', k).update(path.resolve(filePath)).update('\0').update(body).digest('hex');
}

/** The file's bytes with a seal, for the text of a non-empty JSON object. Unchanged without a key. */
export function sealJson(filePath: string, json: string): string {
  const k = stateKey();
  if (k === undefined || !json.startsWith('{')) return json;
  return `${PREFIX}${mac(k, filePath, json)}",${json.slice(1)}`;
}

/** Checks a JSON file's seal; without a key every file counts as sealed (nothing is checked). */
export function unsealJson(filePath: string, text: string): Unsealed {
  const k = stateKey();
  if (k === undefined) return { status: 'sealed', text };
  const m = SEAL_LINE.exec(text);
  if (m === null) return text.includes(`"${SEAL_FIELD}"`) ? { status: 'forged' } : { status: 'unsigned', text };
  const body = `{${text.slice(m[0].length)}`;
  return timingSafeEqualHex(m[1] ?? '', mac(k, filePath, body)) ? { status: 'sealed', text: body } : { status: 'forged' };
}

/** The lock's text with a seal line. */
export function sealLock(filePath: string, text: string): string {
  const k = stateKey();
  return k === undefined ? text : `${text}seal:${mac(k, filePath, text)}\n`;
}

/** The lock's text without its seal if it verifies; null if it does not (or has none). */
export function unsealLock(filePath: string, text: string): string | null {
  const k = stateKey();
  if (k === undefined) return text;
  const m = LOCK_SEAL_LINE.exec(text);
  if (m === null) return null;
  const body = text.slice(0, m.index + 1);
  return timingSafeEqualHex(m[1] ?? '', mac(k, filePath, body)) ? body : null;
}

function timingSafeEqualHex(a: string, b: string): boolean {
  return a.length === b.length && nodeCrypto().timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
