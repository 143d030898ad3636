// loadSkills over real directories: every root the docs list (.agents, .claude, .codex; the
// person's and the project's) is read, the project's skill wins on a name, a bad file is one line.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSkills } from './skills.ts';

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

function skill(base: string, folder: string, name: string, description: string): string {
  const dir = join(base, folder, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nbody\n`);
  return join(dir, 'SKILL.md');
}

describe('loadSkills', () => {
  it('reads every root, the project winning over the person on the same name', () => {
    root = mkdtempSync(join(tmpdir(), 'agentx-skills-'));
    const home = join(root, 'home');
    const project = join(root, 'project');
    skill(home, '.agents/skills', 'a-user', 'from ~/.agents');
    skill(home, '.claude/skills', 'b-user', 'from ~/.claude');
    skill(home, '.codex/skills', 'c-user', 'from ~/.codex');
    skill(project, '.agents/skills', 'd-project', 'from .agents');
    skill(project, '.claude/skills', 'e-project', 'from .claude');
    skill(project, '.codex/skills', 'f-project', 'from .codex');
    skill(home, '.agents/skills', 'shared', "the person's");
    const projects = skill(project, '.claude/skills', 'shared', "the project's");
    const { skills, problems } = loadSkills(home, project);
    expect(problems).toEqual([]);
    const byName = new Map(skills.map((s) => [s.name, s]));
    expect([...byName.keys()].sort()).toEqual(['a-user', 'b-user', 'c-user', 'd-project', 'e-project', 'f-project', 'shared']);
    expect(byName.get('c-user')).toMatchObject({ scope: 'user', description: 'from ~/.codex' });
    expect(byName.get('f-project')).toMatchObject({ scope: 'project', description: 'from .codex' });
    expect(byName.get('shared')).toEqual({ name: 'shared', description: "the project's", path: projects, scope: 'project' });
  });

  it('a SKILL.md without a description is one line naming it; the rest load', () => {
    root = mkdtempSync(join(tmpdir(), 'agentx-skills-'));
    const project = join(root, 'project');
    skill(project, '.agents/skills', 'good', 'works');
    mkdirSync(join(project, '.agents/skills/bad'), { recursive: true });
    writeFileSync(join(project, '.agents/skills/bad/SKILL.md'), '---\nname: bad\n---\nno description\n');
    const { skills, problems } = loadSkills(join(root, 'home'), project);
    expect(skills.map((s) => s.name)).toEqual(['good']);
    expect(problems).toEqual([`${join(project, '.agents/skills/bad/SKILL.md')}: the front matter needs "name" and "description"; skipped`]);
  });
});
