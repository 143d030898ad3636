// Tool names offered to the model: allowed characters, length, stability and collisions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignToolNames, baseToolName } from './naming.ts';
import type { ToolKey } from './naming.ts';

const SEED = Number(process.env.MCP_NAMING_SEED ?? 20301);
console.log(`naming properties: seed ${SEED} (replay with MCP_NAMING_SEED=${SEED})`);

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

function names(keys: ToolKey[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, key] of assignToolNames(keys)) out[`${key.server}/${key.tool}`] = name;
  return out;
}

describe('tool names', () => {
  it('is mcp__server__tool, sanitised to the allowed characters', () => {
    expect(baseToolName({ server: 'github', tool: 'create_issue' })).toBe('mcp__github__create_issue');
    expect(baseToolName({ server: 'my server', tool: 'files.read/v2' })).toBe('mcp__my_server__files_read_v2');
    expect(baseToolName({ server: 'ünï', tool: '' })).toBe('mcp___n____');
  });

  it('cuts long names to 64 characters with a stable hash suffix', () => {
    const key = { server: 'a-rather-long-server-name', tool: 'and_an_even_longer_tool_name_that_keeps_going' };
    const name = baseToolName(key);
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^mcp__a-rather-long-server-name__and_an_even_longer_tool_[0-9a-f]{8}$/);
    expect(baseToolName({ ...key })).toBe(name);
    expect(baseToolName({ ...key, tool: `${key.tool}2` })).not.toBe(name);
  });

  it('resolves collisions: the exact name keeps it, the others get a hash suffix, order does not matter', () => {
    const keys = [
      { server: 'a.b', tool: 'x' },
      { server: 'a_b', tool: 'x' },
      { server: 'a b', tool: 'x' },
      { server: 'c', tool: 'y' },
    ];
    const forward = names(keys);
    expect(forward['a_b/x']).toBe('mcp__a_b__x');
    expect(forward['c/y']).toBe('mcp__c__y');
    expect(forward['a.b/x']).toMatch(/^mcp__a_b__x_[0-9a-f]{8}$/);
    expect(forward['a b/x']).toMatch(/^mcp__a_b__x_[0-9a-f]{8}$/);
    expect(forward['a.b/x']).not.toBe(forward['a b/x']);
    expect(names([...keys].reverse())).toEqual(forward);
  });

  it('a suffixed name never takes a plain name that another tool has', () => {
    // "x." and "x_" collide; "x_" keeps mcp__s__x_ and "x." becomes mcp__s__x__<hash>.
    const suffixed =
      names([
        { server: 's', tool: 'x.' },
        { server: 's', tool: 'x_' },
      ])['s/x.'] ?? '';
    expect(suffixed).toMatch(/^mcp__s__x__[0-9a-f]{8}$/);
    // A third tool whose plain name is exactly that keeps it; "x." moves to a longer hash.
    const tool = suffixed.slice('mcp__s__'.length);
    const again = names([
      { server: 's', tool: 'x.' },
      { server: 's', tool: 'x_' },
      { server: 's', tool },
    ]);
    expect(again[`s/${tool}`]).toBe(suffixed);
    expect(again['s/x.']).toMatch(/^mcp__s__x__[0-9a-f]{16}$/);
    expect(new Set(Object.values(again)).size).toBe(3);
  });

  it('property: every name is valid, names are unique, and they depend only on the set of keys', () => {
    const part = fc.string({ unit: fc.constantFrom('a', 'b', '_', '.', '-', ' ', 'é', 'Z', '9'), maxLength: 40 });
    const key = fc.record({ server: part.filter((s) => s.length > 0), tool: part });
    fc.assert(
      fc.property(fc.array(key, { maxLength: 30 }), (keys) => {
        const assigned = assignToolNames(keys);
        const distinct = new Set(keys.map((k) => `${k.server}\u0000${k.tool}`));
        expect(assigned.size).toBe(distinct.size);
        for (const name of assigned.keys()) expect(name).toMatch(VALID);
        expect(names([...keys].reverse())).toEqual(names(keys));
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
