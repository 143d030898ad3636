// Remembered approvals of project `.mcp.json` files. A cloned repository must not start programs
// on its own, so a project file is used only once the person approved that exact content; the
// record lives outside every project ($XDG_STATE_HOME/agentx/mcp-approvals.json, mode 0600) so
// the repository cannot approve itself, and any edit to the file asks again.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { homeDir } from '../../paths.ts';
import { writeFileAtomicSync } from '../../lib/atomic-file.ts';
import { isRecord } from '../../lib/guards.ts';

interface ApprovalRecord {
  sha256: string;
  approvedAt: string;
}

interface ApprovalFile {
  version: 1;
  files: Record<string, ApprovalRecord>;
}

/** XDG base directories must be absolute; a relative value is ignored, as the spec says. */
function xdgDir(env: NodeJS.ProcessEnv, name: string, fallback: string[]): string {
  const value = env[name];
  if (value !== undefined && value !== '' && isAbsolute(value)) return value;
  return join(homeDir(env), ...fallback);
}

export function userMcpConfigPath(env: NodeJS.ProcessEnv): string {
  return join(xdgDir(env, 'XDG_CONFIG_HOME', ['.config']), 'agentx', 'mcp.json');
}

export function approvalsPath(env: NodeJS.ProcessEnv): string {
  return join(xdgDir(env, 'XDG_STATE_HOME', ['.local', 'state']), 'agentx', 'mcp-approvals.json');
}

function isApprovalRecord(v: unknown): v is ApprovalRecord {
  return isRecord(v) && typeof v.sha256 === 'string' && typeof v.approvedAt === 'string';
}

/** A missing or unreadable store approves nothing: the worst case is being asked again. */
function readStore(path: string): ApprovalFile {
  const store: ApprovalFile = { version: 1, files: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return store;
  }
  if (!isRecord(parsed) || !isRecord(parsed.files)) return store;
  for (const [file, record] of Object.entries(parsed.files)) {
    if (isApprovalRecord(record)) store.files[file] = record;
  }
  return store;
}

export function isApproved(storePath: string, file: string, sha256: string): boolean {
  return readStore(storePath).files[file]?.sha256 === sha256;
}

/** Records `sha256` as the approved content of `file` (replacing an older approval of it). */
export function recordApproval(storePath: string, file: string, sha256: string, now: Date): void {
  const store = readStore(storePath);
  store.files[file] = { sha256, approvedAt: now.toISOString() };
  mkdirSync(dirname(storePath), { recursive: true, mode: 0o700 });
  // A new file replaces the old by rename, so the store is 0600 even if an older one was wider.
  writeFileAtomicSync(storePath, `${JSON.stringify(store, null, 2)}\n`, 0o600);
}
