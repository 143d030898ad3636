// What a server (base URL) is known to support (compaction, storage, WebSocket, built-in tool types), remembered across runs in a small
// file outside the project ($XDG_STATE_HOME/agentx/servers.json), so a server without
// context_management or /responses/compact costs one failed probe, not one per turn or per run.
// Entries expire after a while: servers gain features.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { isRecord } from '../lib/guards.ts';

export type Support = 'unknown' | 'yes' | 'no';

export interface ServerCapabilities {
  contextManagement: Support;
  compactEndpoint: Support;
  /** Windows learned from overflows, by model (tokens). */
  observedWindows: Record<string, number>;
  /** Whether the server keeps responses for `previous_response_id` (no: every request carries the conversation). */
  storesResponses?: Support;
  /** When it was found to store nothing (re-checked a day later: engine/conversation.ts). */
  statelessSince?: string;
  /** Whether the server accepted a WebSocket upgrade on /responses (the model client's auto transport). */
  websocket?: Support;
  /** Built-in tool types the server refused with a 400 (`shell`, `apply_patch`): offered as function tools instead (tool-fallback.ts). */
  refusedToolTypes?: string[];
}

export const UNKNOWN_CAPABILITIES: ServerCapabilities = { contextManagement: 'unknown', compactEndpoint: 'unknown', observedWindows: {} };

/** How the driver reads and records what works; the file-backed one is below, tests use inMemory. */
export interface CapabilityMemory {
  get(): ServerCapabilities;
  set(update: Partial<ServerCapabilities>): void;
}

export function inMemoryCapabilities(initial: ServerCapabilities = UNKNOWN_CAPABILITIES): CapabilityMemory {
  let current = { ...initial, observedWindows: { ...initial.observedWindows } };
  return {
    get: () => current,
    set: (update) => {
      current = { ...current, ...update };
    },
  };
}

const MAX_AGE_MS = 14 * 24 * 3600_000;
const MAX_SERVERS = 50;

/** $XDG_STATE_HOME/agentx/servers.json, else ~/.local/state/agentx/servers.json. */
export function capabilitiesPath(env: Record<string, string | undefined>, home: string): string {
  const state = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(home, '.local', 'state');
  return join(state, 'agentx', 'servers.json');
}

interface StoredEntry extends ServerCapabilities {
  checkedAt: string;
}

const asSupport = (v: unknown): Support => (v === 'yes' || v === 'no' ? v : 'unknown');

function parseEntry(v: unknown): StoredEntry | null {
  if (!isRecord(v) || typeof v.checkedAt !== 'string') return null;
  const windows: Record<string, number> = {};
  if (isRecord(v.observedWindows)) {
    for (const [model, tokens] of Object.entries(v.observedWindows)) if (typeof tokens === 'number' && tokens > 0) windows[model] = tokens;
  }
  const entry: StoredEntry = {
    contextManagement: asSupport(v.contextManagement),
    compactEndpoint: asSupport(v.compactEndpoint),
    observedWindows: windows,
    checkedAt: v.checkedAt,
  };
  if (v.storesResponses === 'yes' || v.storesResponses === 'no') entry.storesResponses = v.storesResponses;
  if (typeof v.statelessSince === 'string') entry.statelessSince = v.statelessSince;
  if (v.websocket === 'yes' || v.websocket === 'no') entry.websocket = v.websocket;
  if (Array.isArray(v.refusedToolTypes)) {
    const types = v.refusedToolTypes.filter((t): t is string => typeof t === 'string' && /^[a-z_]{1,40}$/.test(t));
    if (types.length > 0) entry.refusedToolTypes = types;
  }
  return entry;
}

/** Every stored entry; a missing, unreadable or foreign file reads as empty (it is only a cache). */
function readAll(path: string): Map<string, StoredEntry> {
  const out = new Map<string, StoredEntry>();
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!isRecord(parsed) || !isRecord(parsed.servers)) return out;
    for (const [url, entry] of Object.entries(parsed.servers)) {
      const e = parseEntry(entry);
      if (e) out.set(url, e);
    }
  } catch {
    // No cache yet, or a broken one: start from nothing, the probes refill it.
  }
  return out;
}

export function loadServerCapabilities(path: string, baseUrl: string, now: Date): ServerCapabilities {
  const entry = readAll(path).get(baseUrl);
  if (!entry) return UNKNOWN_CAPABILITIES;
  const age = now.getTime() - Date.parse(entry.checkedAt);
  if (!(age >= 0 && age < MAX_AGE_MS)) return UNKNOWN_CAPABILITIES;
  const { checkedAt: _checked, ...caps } = entry;
  return caps;
}

/**
 * Records what is known about one server (an atomic replace, so a concurrent reader never sees
 * half a file). Best effort: false when it could not be written.
 */
export function saveServerCapabilities(path: string, baseUrl: string, caps: ServerCapabilities, now: Date): boolean {
  try {
    const all = readAll(path);
    all.delete(baseUrl);
    all.set(baseUrl, { ...caps, checkedAt: now.toISOString() });
    const kept = [...all].slice(-MAX_SERVERS);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // A cache the next probe rebuilds: no fsync.
    writeFileAtomicSync(path, `${JSON.stringify({ version: 1, servers: Object.fromEntries(kept) }, null, 2)}\n`, 0o600, { durable: false });
    return true;
  } catch {
    return false;
  }
}

/** The file-backed memory for one server: read once, written on every change. */
export function fileCapabilities(path: string, baseUrl: string, now: () => Date): CapabilityMemory {
  const memory = inMemoryCapabilities(loadServerCapabilities(path, baseUrl, now()));
  return {
    get: () => memory.get(),
    set: (update) => {
      memory.set(update);
      saveServerCapabilities(path, baseUrl, memory.get(), now());
    },
  };
}
