// Custom command files over real directories: a malformed file is one line naming it and is
// skipped while the rest load; a project's command wins over the person's of the same name.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expandCommand, loadCustomCommands, projectCommandsDir, userCommandsDir } from './commands.ts';

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

function setup(): { env: NodeJS.ProcessEnv; project: string; user: string } {
  root = mkdtempSync(join(tmpdir(), 'agentx-commands-'));
  const env = { HOME: join(root, 'home'), XDG_CONFIG_HOME: join(root, 'home', '.config') };
  const project = join(root, 'project');
  const user = userCommandsDir(env);
  mkdirSync(user, { recursive: true });
  mkdirSync(projectCommandsDir(project), { recursive: true });
  return { env, project, user };
}

describe('loadCustomCommands', () => {
  it('skips a malformed file with one line naming it; the others load', () => {
    const { env, project, user } = setup();
    writeFileSync(join(user, 'open.md'), '---\ndescription: never closed\nReview $ARGUMENTS\n');
    writeFileSync(join(user, 'empty.md'), '---\ndescription: nothing to send\n---\n\n');
    writeFileSync(join(user, 'review.md'), '---\ndescription: review a file\n---\nReview $ARGUMENTS for bugs.\n');
    const { commands, problems } = loadCustomCommands(env, project, []);
    expect(commands.map((c) => c.name)).toEqual(['review']);
    expect(problems).toEqual([
      `${join(user, 'empty.md')}: the file has no prompt text; skipped`,
      `${join(user, 'open.md')}: the front matter opened with --- is never closed; skipped`,
    ]);
    expect(expandCommand(commands[0]!, 'a.ts')).toBe('Review a.ts for bugs.');
  });

  it("a project's command wins over the person's; a built-in name is not used", () => {
    const { env, project, user } = setup();
    writeFileSync(join(user, 'fix.md'), 'mine');
    writeFileSync(join(projectCommandsDir(project), 'fix.md'), 'theirs');
    writeFileSync(join(user, 'plan.md'), 'shadowing');
    const { commands, problems } = loadCustomCommands(env, project, ['plan']);
    expect(commands).toEqual([expect.objectContaining({ name: 'fix', template: 'theirs', scope: 'project' })]);
    expect(problems).toEqual([`${join(user, 'plan.md')}: /plan is a built-in command; the file is not used`]);
  });
});
