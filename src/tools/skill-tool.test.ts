// load_skill over a real skill folder: the model is told where the skill lives, so the files its
// SKILL.md refers to (next to it) can be found.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSkillTool } from './skill-tool.ts';
import { unexpectedApproval } from '../../test/support/tools.ts';

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('load_skill', () => {
  it('answers with the skill text and the directory it lives in', async () => {
    root = mkdtempSync(join(tmpdir(), 'agentx-skill-'));
    const dir = join(root, '.agents', 'skills', 'release');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), '---\nname: release\ndescription: cut a release\n---\nRun scripts/bump.sh first.\n');
    const tool = createSkillTool([{ name: 'release', description: 'cut a release', path: join(dir, 'SKILL.md') }]);
    const parsed = tool.parse({ type: 'function_call', call_id: 'c1', name: 'load_skill', arguments: JSON.stringify({ name: 'release' }) });
    if (!parsed.ok) throw new Error(parsed.error);
    const r = await tool.run(parsed.call, {
      cwd: root,
      workspaceRoot: root,
      signal: new AbortController().signal,
      retry: false,
      progress: () => undefined,
      approve: unexpectedApproval,
    });
    const output = r.reply.text;
    expect(output).toContain(`relative to ${dir}`);
    expect(output).toContain('Run scripts/bump.sh first.');
  });

  it('cuts a skill over 32 KiB, says so to the model and in the summary the person sees', async () => {
    root = mkdtempSync(join(tmpdir(), 'agentx-skill-'));
    const path = join(root, 'SKILL.md');
    writeFileSync(path, `---\nname: big\ndescription: big one\n---\n${'x'.repeat(40 * 1024)}TAIL`);
    const tool = createSkillTool([{ name: 'big', description: 'big one', path }]);
    const parsed = tool.parse({ type: 'function_call', call_id: 'c2', name: 'load_skill', arguments: JSON.stringify({ name: 'big' }) });
    if (!parsed.ok) throw new Error(parsed.error);
    const r = await tool.run(parsed.call, {
      cwd: root,
      workspaceRoot: root,
      signal: new AbortController().signal,
      retry: false,
      progress: () => undefined,
      approve: unexpectedApproval,
    });
    const output = r.reply.text;
    expect(output).not.toContain('TAIL');
    expect(output).toMatch(/\[skill cut: .*only the first 32/);
    expect(r.summary.join('\n')).toMatch(/load_skill big \(cut: only the first 32.*were sent\)/);
  });
});
