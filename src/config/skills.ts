// Skills in the Agent Skills format (read by Codex and Claude Code too): a folder with a SKILL.md
// whose front matter has `name` and `description`. Their names and descriptions are listed to
// the model (engine/instructions.ts), which loads one when a task needs it (tools/skill-tool.ts).
// A project's skills are plain text for the model: they run nothing by themselves.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseFrontMatter } from '../lib/front-matter.ts';
import { errorCode, errorMessage } from '../lib/fsutil.ts';

export interface Skill {
  name: string;
  description: string;
  /** The SKILL.md file. */
  path: string;
  scope: 'user' | 'project';
}

/** Where skills are looked for, nearest last: the person's, then the project's (which win on a name). */
export function skillRoots(home: string, projectDir: string): { dir: string; scope: Skill['scope'] }[] {
  const names = ['.agents/skills', '.claude/skills', '.codex/skills'];
  return [
    ...names.map((n) => ({ dir: join(home, n), scope: 'user' as const })),
    ...names.map((n) => ({ dir: join(projectDir, n), scope: 'project' as const })),
  ];
}

const MAX_DESCRIPTION_CHARS = 500;

/** One line (descriptions go into the system prompt: no line breaks, bounded). */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DESCRIPTION_CHARS ? `${line.slice(0, MAX_DESCRIPTION_CHARS)}…` : line;
}

export function loadSkills(home: string, projectDir: string): { skills: Skill[]; problems: string[] } {
  const problems: string[] = [];
  const byName = new Map<string, Skill>();
  for (const root of skillRoots(home, projectDir)) {
    let entries: string[];
    try {
      entries = readdirSync(root.dir);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT' && errorCode(err) !== 'ENOTDIR') problems.push(`${root.dir}: cannot be read (${errorMessage(err)})`);
      continue;
    }
    for (const entry of entries.sort()) {
      const path = join(root.dir, entry, 'SKILL.md');
      let text: string;
      try {
        if (!statSync(path).isFile()) continue;
        // Only the front matter is needed here; the model loads the body when it uses the skill.
        text = readFileSync(path, 'utf8').slice(0, 8192);
      } catch (err) {
        if (errorCode(err) !== 'ENOENT' && errorCode(err) !== 'ENOTDIR') problems.push(`${path}: cannot be read (${errorMessage(err)}); skipped`);
        continue;
      }
      const { fields } = parseFrontMatter(text);
      const name = oneLine(fields.name ?? '');
      const description = oneLine(fields.description ?? '');
      if (name === '' || description === '') {
        problems.push(`${path}: the front matter needs "name" and "description"; skipped`);
        continue;
      }
      byName.set(name, { name, description, path, scope: root.scope });
    }
  }
  return { skills: [...byName.values()], problems };
}
