import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemPrompt } from '../engine/instructions.ts';
import { findAgentsFiles, readAgentsFiles } from './agents-md.ts';

describe('AGENTS.md discovery', () => {
  it('collects $HOME, then every directory from the root down to cwd, in that order', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-agents-')));
    const home = join(root, 'home');
    const project = join(root, 'work', 'project', 'sub');
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(home, 'AGENTS.md'), 'home rules');
    writeFileSync(join(root, 'work', 'AGENTS.md'), 'work rules');
    writeFileSync(join(project, 'AGENTS.md'), 'sub rules');
    const files = findAgentsFiles(project, home);
    expect(files).toEqual([join(home, 'AGENTS.md'), join(root, 'work', 'AGENTS.md'), join(project, 'AGENTS.md')]);
    const text = systemPrompt({ tools: [], agentsFiles: readAgentsFiles(project, home) });
    expect(text.indexOf('home rules')).toBeLessThan(text.indexOf('work rules'));
    expect(text.indexOf('work rules')).toBeLessThan(text.indexOf('sub rules'));
    expect(text).toContain(project);
  });

  it('does not read $HOME twice when the project is inside it', () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-home-')));
    const project = join(home, 'p');
    mkdirSync(project);
    writeFileSync(join(home, 'AGENTS.md'), 'once');
    expect(findAgentsFiles(project, home)).toEqual([join(home, 'AGENTS.md')]);
  });

  it('skips directories anyone can write to: sticky like /tmp, or o+w (issue 23 §6)', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-agents-')));
    const home = join(root, 'home');
    const shared = join(root, 'shared');
    const open = join(shared, 'open');
    const project = join(open, 'mine', 'project');
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    // A temp dir like /tmp (1777) as an ancestor, where a command planted its AGENTS.md; a
    // world-writable one below it; then the person's own directories.
    chmodSync(shared, 0o1777);
    chmodSync(open, 0o777);
    writeFileSync(join(shared, 'AGENTS.md'), 'planted in the temp dir');
    writeFileSync(join(open, 'AGENTS.md'), 'planted in an open dir');
    writeFileSync(join(open, 'mine', 'AGENTS.md'), 'mine');
    writeFileSync(join(project, 'AGENTS.md'), 'project rules');
    expect(findAgentsFiles(project, home)).toEqual([join(open, 'mine', 'AGENTS.md'), join(project, 'AGENTS.md')]);
    const text = systemPrompt({ tools: [], agentsFiles: readAgentsFiles(project, home) });
    expect(text).not.toContain('planted');
    expect(text).toContain('project rules');
  });

  it.runIf(process.getuid?.() === 0)('skips a directory owned by another user (run as root: chown)', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-agents-')));
    const theirs = join(root, 'theirs');
    const project = join(theirs, 'project');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(theirs, 'AGENTS.md'), 'theirs');
    writeFileSync(join(project, 'AGENTS.md'), 'project rules');
    chownSync(theirs, 65534, 65534);
    expect(findAgentsFiles(project, join(root, 'home'))).toEqual([join(project, 'AGENTS.md')]);
  });
});
