// Custom slash commands and skills end to end: real files in a temp project and HOME, the built
// CLI against the emulator (one-shot, and the REPL in a pty), the requests inspected.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoggedRequest } from '../emulator/server.ts';
import { runCli, sandbox, type Sandbox } from './harness.ts';
import { prompt, replSuite, toolOutputs, turn, userText } from './repl-fixtures.ts';

const suite = replSuite();

interface Body {
  instructions: string;
  tools: { type: string; name?: string }[];
}
const bodyOf = (r: LoggedRequest | undefined): Body => r?.body as Body;

function skill(root: string, folder: string, text: string): void {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, 'SKILL.md'), text);
}

function withSkills(box: Sandbox): void {
  skill(
    join(box.cwd, '.agents', 'skills'),
    'release',
    '---\nname: release\ndescription: "Cut a release: bump, tag, changelog"\n---\n# Release\n1. Bump the version in package.json.\n2. Tag it.\n',
  );
  skill(join(box.home, '.claude', 'skills'), 'big', `---\nname: big\ndescription: a very long skill\n---\n${'x'.repeat(40 * 1024)}\nTHE-END\n`);
  skill(join(box.cwd, '.agents', 'skills'), 'broken', '---\nname: broken\n---\nno description\n');
}

describe('skills', () => {
  it('are listed to the model by name and description and loaded on demand; a big one is cut and says so', async () => {
    const box = sandbox(suite.emu.baseUrl);
    withSkills(box);
    suite.emu.enqueue(
      { kind: 'function', name: 'load_skill', arguments: JSON.stringify({ name: 'release' }) },
      { kind: 'function', name: 'load_skill', arguments: JSON.stringify({ name: 'big' }) },
    );
    const from = suite.emu.requests.length;
    const r = await runCli(['cut a release'], box);
    expect(r.code).toBe(0);
    const first = bodyOf(suite.emu.requests[from]);
    expect(first.instructions).toContain('- release: Cut a release: bump, tag, changelog');
    expect(first.instructions).toContain('- big: a very long skill');
    // The body is not in the prompt: it is loaded when needed.
    expect(first.instructions).not.toContain('Bump the version');
    expect(first.tools.map((t) => t.name)).toContain('load_skill');
    expect(String(toolOutputs(suite.emu.requests[from + 1])[0]?.output)).toContain('1. Bump the version in package.json.');
    const big = String(toolOutputs(suite.emu.requests[from + 2])[0]?.output);
    expect(big).toMatch(/\[skill cut: .*, only the first 32(\.0)? KB are shown\]/);
    expect(big).not.toContain('THE-END');
    expect(r.stderr).toMatch(/broken\/SKILL\.md: the front matter needs "name" and "description"; skipped/);
  });

  it('no skills: no load_skill tool and nothing about skills in the prompt', async () => {
    const box = sandbox(suite.emu.baseUrl);
    const from = suite.emu.requests.length;
    expect((await runCli(['hello'], box)).code).toBe(0);
    expect(bodyOf(suite.emu.requests[from]).tools.map((t) => t.name)).not.toContain('load_skill');
    expect(bodyOf(suite.emu.requests[from]).instructions).not.toMatch(/skill/i);
  });
});

describe('custom commands', () => {
  it('/name args sends the file with $ARGUMENTS replaced; /skills lists skills and commands', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    withSkills(sb);
    mkdirSync(join(sb.cwd, '.agentx', 'commands'), { recursive: true });
    writeFileSync(join(sb.cwd, '.agentx', 'commands', 'review.md'), '---\ndescription: review a file\n---\nReview $ARGUMENTS carefully.\n');
    mkdirSync(join(sb.home, '.config', 'agentx', 'commands'), { recursive: true });
    writeFileSync(join(sb.home, '.config', 'agentx', 'commands', 'greet-me.md'), 'Say hello.\n');
    writeFileSync(join(sb.home, '.config', 'agentx', 'commands', 'plan.md'), 'shadowing a built-in\n');
    const a = suite.start(sb);
    await prompt(a);
    let n = suite.emu.requests.length;
    await turn(a, '/review src/a.ts', 'You said: Review src/a.ts carefully.');
    expect(userText(suite.emu.requests[n])).toContain('Review src/a.ts carefully.');
    n = suite.emu.requests.length;
    await turn(a, '/greet-me in French', /tokens: /);
    expect(userText(suite.emu.requests[n])).toContain('Say hello.\n\nin French');
    a.line('/skills');
    await a.waitFor('/review (project command)');
    const shown = a.screen();
    expect(shown).toMatch(/release \(project\) Cut a release/);
    expect(shown).toMatch(/big \(user\) a very long skill/);
    expect(shown).toMatch(/\/review \(project command\) review a file/);
    expect(shown).toMatch(/plan\.md: \/plan is a built-in command; the file is not used/);
    a.line('/nosuch');
    await a.waitFor('unknown command /nosuch');
  });
});

describe('/init', () => {
  it('the model explores and proposes AGENTS.md; the patch is shown and written only after yes', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    const a = suite.start(sb);
    await prompt(a);
    const patch = '*** Begin Patch\n*** Add File: AGENTS.md\n+# Agents\n+Run npm test before committing.\n*** End Patch\n';
    suite.emu.enqueue({ kind: 'shell', commands: ['ls'] }, { kind: 'patch', patch }, { kind: 'text', text: 'Wrote AGENTS.md.' });
    const n = suite.emu.requests.length;
    a.line('/init');
    await a.waitFor('+Run npm test before committing.');
    await a.waitFor('[y]es / [n]o / [a]lways');
    expect(existsSync(join(sb.cwd, 'AGENTS.md'))).toBe(false);
    expect(userText(suite.emu.requests[n])).toContain('Create an AGENTS.md file');
    a.write('y');
    await a.waitFor('Wrote AGENTS.md.');
    await prompt(a);
    expect(readFileSync(join(sb.cwd, 'AGENTS.md'), 'utf8')).toBe('# Agents\nRun npm test before committing.\n');
    // A second /init does not overwrite it.
    a.line('/init');
    await a.waitFor('AGENTS.md already exists here');
  });
});
