// What the emulated model "remembers": facts given as `remember KEY=VALUE` in any message it can
// still see (instructions, user/system/developer messages, its own compaction items), and the
// person's messages themselves. Compaction items are the emulator's own: an opaque-looking
// encoding of the facts and of the person's recent messages that only this emulator can read,
// as a real provider's encrypted_content is readable only by that provider.
import { asRecords, asString, byteLength, isRecord, newId } from './wire.ts';

export interface CompactionPayload {
  /** Every fact visible when the compaction was made (later facts of a key win). */
  facts: Record<string, string>;
  /** How many of the person's messages the compaction stands for in total. */
  folded: number;
  /** The person's most recent messages, verbatim (server-side compaction keeps them inside). */
  recent: string[];
}

export interface CompactionWireItem {
  id: string;
  type: 'compaction';
  encrypted_content: string;
}

/** What the brain can see of the conversation. */
export interface ContextView {
  facts: Map<string, string>;
  /** The person's messages still visible, oldest first (a compaction's kept messages included). */
  userMessages: string[];
  /** How many of the person's messages were folded into compactions along the way. */
  folded: number;
}

const PREFIX = 'emc1.';
const FACT = /\bremember\s+([A-Za-z][\w.-]*)\s*=\s*([^\s,;]+)/gi;

export function encodeCompaction(payload: CompactionPayload): string {
  return PREFIX + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The payload of one of our compaction items, or null for anything else (another provider's, garbage). */
export function decodeCompaction(content: string): CompactionPayload | null {
  if (!content.startsWith(PREFIX)) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(content.slice(PREFIX.length), 'base64url').toString('utf8'));
    if (!isRecord(parsed) || !isRecord(parsed.facts) || typeof parsed.folded !== 'number' || !Array.isArray(parsed.recent)) return null;
    const facts: Record<string, string> = {};
    for (const [key, value] of Object.entries(parsed.facts)) if (typeof value === 'string') facts[key] = value;
    return { facts, folded: parsed.folded, recent: parsed.recent.filter((m): m is string => typeof m === 'string') };
  } catch {
    return null;
  }
}

export function compactionItem(payload: CompactionPayload): CompactionWireItem {
  return { id: newId('cmp_'), type: 'compaction', encrypted_content: encodeCompaction(payload) };
}

/** `remember KEY=VALUE` pairs in a text, in order (a trailing full stop is not part of the value). */
export function factsIn(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const match of text.matchAll(FACT)) {
    const key = match[1];
    const value = match[2]?.replace(/\.+$/, '');
    if (key && value) out.push([key, value]);
  }
  return out;
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asRecords(content)
    .map((part) => asString(part.text) ?? '')
    .join('\n');
}

const READ_ROLES = new Set(['user', 'system', 'developer']);

/** Index of a compaction item whose content we cannot read, or -1 (the service rejects those). */
export function unreadableCompaction(items: readonly unknown[]): number {
  return items.findIndex((item) => isRecord(item) && item.type === 'compaction' && decodeCompaction(asString(item.encrypted_content) ?? '') === null);
}

/** The model's view of instructions + context items, compaction items expanded. */
export function viewOf(instructions: string | null, items: readonly unknown[]): ContextView {
  const facts = new Map<string, string>();
  const learn = (text: string): void => {
    for (const [key, value] of factsIn(text)) facts.set(key, value);
  };
  if (instructions) learn(instructions);
  const userMessages: string[] = [];
  let folded = 0;
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item.type === 'compaction') {
      const payload = decodeCompaction(asString(item.encrypted_content) ?? '');
      if (!payload) continue;
      for (const [key, value] of Object.entries(payload.facts)) facts.set(key, value);
      folded += payload.folded - payload.recent.length;
      for (const text of payload.recent) {
        learn(text);
        userMessages.push(text);
      }
      continue;
    }
    const role = asString(item.role);
    if (role === undefined || !READ_ROLES.has(role) || (item.type !== undefined && item.type !== 'message')) continue;
    const text = contentText(item.content);
    learn(text);
    if (role === 'user') userMessages.push(text);
  }
  return { facts, userMessages, folded };
}

/**
 * The most recent messages whose bytes fit `budgetBytes`, oldest first. The newest `mustKeep`
 * are kept whatever their size (the message being answered cannot be compacted away).
 */
export function keepRecent(messages: readonly string[], budgetBytes: number, mustKeep = 0): string[] {
  const kept: string[] = [];
  let used = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const text = messages[i] ?? '';
    const size = byteLength(text);
    if (used + size > budgetBytes && kept.length >= mustKeep) break;
    kept.unshift(text);
    used += size;
  }
  return kept;
}

/** Folds a view into a compaction payload, keeping the newest messages within `budgetBytes` verbatim. */
export function foldView(view: ContextView, recentBudgetBytes: number, mustKeep = 0): CompactionPayload {
  return {
    facts: Object.fromEntries(view.facts),
    folded: view.folded + view.userMessages.length,
    recent: keepRecent(view.userMessages, recentBudgetBytes, mustKeep),
  };
}
