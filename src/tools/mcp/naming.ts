// Names under which MCP tools are offered to the model: `mcp__<server>__<tool>`, made of the
// characters the API accepts (^[a-zA-Z0-9_-]+$, at most 64). A name that had to be cut, or that
// collides with another after sanitising, ends in a hash of the original server and tool names,
// so it is the same in every session and does not depend on the order servers answer in.
import { nodeCrypto } from '../../lib/builtins.ts';

export const MAX_TOOL_NAME_LENGTH = 64;
export const MCP_NAME_PREFIX = 'mcp__';

const SHORT_HASH = 8;

export interface ToolKey {
  server: string;
  tool: string;
}

export function sanitizeNamePart(text: string): string {
  const clean = text.replace(/[^a-zA-Z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

function keyHash(key: ToolKey, length: number): string {
  // A separator config names cannot contain, so ("a", "b_c") and ("a_b", "c") hash differently.
  return nodeCrypto().createHash('sha1').update(`${key.server}\u0000${key.tool}`, 'utf8').digest('hex').slice(0, length);
}

function withSuffix(name: string, hash: string): string {
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - hash.length - 1)}_${hash}`;
}

function joined(key: ToolKey): string {
  return `${MCP_NAME_PREFIX}${key.server}__${key.tool}`;
}

/** The name before collisions are looked at: sanitised, and cut with a hash when too long. */
export function baseToolName(key: ToolKey): string {
  const name = `${MCP_NAME_PREFIX}${sanitizeNamePart(key.server)}__${sanitizeNamePart(key.tool)}`;
  return name.length <= MAX_TOOL_NAME_LENGTH ? name : withSuffix(name, keyHash(key, SHORT_HASH));
}

function compareKeys(a: ToolKey, b: ToolKey): number {
  if (a.server !== b.server) return a.server < b.server ? -1 : 1;
  if (a.tool !== b.tool) return a.tool < b.tool ? -1 : 1;
  return 0;
}

/** A suffixed name that is taken too (vanishingly rare) gets a longer hash, then a counter. */
function freeName(base: string, key: ToolKey, taken: Set<string>): string {
  for (const length of [SHORT_HASH, 16, 40]) {
    const name = withSuffix(base, keyHash(key, length));
    if (!taken.has(name)) return name;
  }
  for (let i = 2; ; i++) {
    const name = withSuffix(base, `${keyHash(key, SHORT_HASH)}${i}`);
    if (!taken.has(name)) return name;
  }
}

/**
 * Function name → tool, for every key (duplicates of a key are kept once). Within a group of
 * keys that map to the same base name, a key whose name needed no change keeps it; every other
 * member gets a hash suffix. The result depends only on the set of keys, not on their order.
 */
export function assignToolNames(keys: readonly ToolKey[]): Map<string, ToolKey> {
  const groups = new Map<string, ToolKey[]>();
  const seen = new Set<string>();
  for (const key of [...keys].sort(compareKeys)) {
    const id = `${key.server}\u0000${key.tool}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const base = baseToolName(key);
    const group = groups.get(base);
    if (group) group.push(key);
    else groups.set(base, [key]);
  }
  const names = new Map<string, ToolKey>();
  const taken = new Set(groups.keys());
  const suffixed: [string, ToolKey][] = [];
  for (const [base, group] of groups) {
    const keeper = group.length === 1 ? group[0] : group.find((k) => joined(k) === base);
    for (const key of group) {
      if (key === keeper) names.set(base, key);
      else suffixed.push([base, key]);
    }
    // A base that nobody keeps stays reserved anyway: it must not later name a different tool.
  }
  for (const [base, key] of suffixed) {
    const name = freeName(base, key, taken);
    taken.add(name);
    names.set(name, key);
  }
  return names;
}
