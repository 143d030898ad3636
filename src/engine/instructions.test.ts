import { describe, expect, it } from 'vitest';
import type { FunctionToolDefinition, ToolDefinition } from '../wire/items.ts';
import { offeredNames, systemPrompt } from './instructions.ts';

const fn = (name: string, properties: Record<string, unknown> = {}): FunctionToolDefinition => ({
  type: 'function',
  name,
  description: name,
  strict: false,
  parameters: { type: 'object', properties },
});

const SHELL: ToolDefinition = { type: 'shell', environment: { type: 'local' } };
const PATCH: ToolDefinition = { type: 'apply_patch' };
const EXEC = [fn('exec_command', { cmd: {} }), fn('write_stdin', { session_id: {} })];
const ESCALATING_EXEC = [fn('exec_command', { cmd: {}, sandbox_permissions: {}, justification: {} }), fn('write_stdin', { session_id: {} })];

/** Every tool name agentx can offer, as the prompt spells it (in backquotes). */
const KNOWN = [
  'load_skill',
  'shell',
  'apply_patch',
  'exec_command',
  'write_stdin',
  'update_plan',
  'view_image',
  'web_search',
  'image_generation',
  'mcp__SERVER__TOOL',
  'sandbox_permissions',
];

/** What the prompt says about each offered name: a tool set's names, and the escalation field when offered. */
function mentioned(prompt: string): string[] {
  return KNOWN.filter((n) => prompt.includes(`\`${n}\``));
}

const SETS: { label: string; tools: ToolDefinition[]; expect: string[] }[] = [
  { label: 'default (built-in shell, patch, view_image)', tools: [SHELL, PATCH, fn('view_image')], expect: ['shell', 'apply_patch', 'view_image'] },
  { label: 'function shell, no patch', tools: [fn('shell', { commands: {} })], expect: ['shell'] },
  {
    label: 'exec sessions with escalation, plan',
    tools: [...ESCALATING_EXEC, PATCH, fn('update_plan')],
    expect: ['apply_patch', 'exec_command', 'write_stdin', 'update_plan', 'sandbox_permissions'],
  },
  { label: 'exec sessions without escalation', tools: EXEC, expect: ['exec_command', 'write_stdin'] },
  {
    label: 'hosted tools and MCP',
    tools: [SHELL, { type: 'web_search' }, { type: 'image_generation' }, fn('mcp__docs__search')],
    expect: ['shell', 'web_search', 'image_generation', 'mcp__SERVER__TOOL'],
  },
  { label: 'nothing', tools: [], expect: [] },
  { label: 'skills', tools: [SHELL, fn('load_skill')], expect: ['shell', 'load_skill'] },
];

describe('the system prompt describes exactly what is offered', () => {
  for (const set of SETS) {
    it(set.label, () => {
      const prompt = systemPrompt({ tools: set.tools, agentsFiles: [] });
      expect(mentioned(prompt).sort()).toEqual([...set.expect].sort());
      // Every offered function or built-in tool is described, MCP tools by their family.
      for (const name of offeredNames(set.tools)) expect(prompt).toContain(name.startsWith('mcp__') ? '`mcp__SERVER__TOOL`' : `\`${name}\``);
    });
  }

  it('says nothing about commands when none can run, and about the sandbox only when they can', () => {
    expect(systemPrompt({ tools: [PATCH], agentsFiles: [] })).not.toMatch(/Running commands|Reading the workspace|only they can change it/);
    expect(systemPrompt({ tools: [SHELL], agentsFiles: [] })).toMatch(/only they can change it/);
  });

  it('is the same text for the same tools: nothing that changes in a session (cwd, date) is in it', () => {
    const a = systemPrompt({ tools: [SHELL, PATCH], agentsFiles: [{ path: '/w/AGENTS.md', text: 'rules' }] });
    expect(systemPrompt({ tools: [SHELL, PATCH], agentsFiles: [{ path: '/w/AGENTS.md', text: 'rules' }] })).toBe(a);
    expect(a).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(a).toMatch(/Markdown/);
  });

  it('puts AGENTS.md texts last, outermost first, with their scope explained', () => {
    const prompt = systemPrompt({
      tools: [SHELL],
      agentsFiles: [
        { path: '/h/AGENTS.md', text: 'home rules' },
        { path: '/w/p/AGENTS.md', text: 'project rules' },
      ],
    });
    expect(prompt.indexOf('home rules')).toBeLessThan(prompt.indexOf('project rules'));
    expect(prompt).toContain('# Instructions from /w/p/AGENTS.md');
    expect(prompt).toMatch(/applies to the directory it is in/);
    expect(systemPrompt({ tools: [SHELL], agentsFiles: [] })).not.toContain('AGENTS.md');
  });

  it('tells the model about plan mode and the skills only when they apply', () => {
    const skills = [{ name: 'release', description: 'cut a release', path: '/w/.agents/skills/release/SKILL.md' }];
    const plan = systemPrompt({ tools: [SHELL, fn('load_skill')], agentsFiles: [], planMode: true, skills });
    expect(plan).toMatch(/You are in plan mode/);
    expect(plan).toContain('- release: cut a release');
    expect(plan).toContain('`load_skill`');
    const normal = systemPrompt({ tools: [SHELL], agentsFiles: [] });
    expect(normal).not.toMatch(/plan mode|Skills/);
  });
});
