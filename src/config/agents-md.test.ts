import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildInstructions } from '../model/request.ts';
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
    const text = buildInstructions(project, '/bin/bash', readAgentsFiles(project, home));
    expect(text.indexOf('home rules')).toBeLessThan(text.indexOf('work rules'));
    expect(text.indexOf('work rules')).toBeLessThan(text.indexOf('sub rules'));
    expect(text).toContain(project);
    expect(text).toContain('/bin/bash');
  });

  it('does not read $HOME twice when the project is inside it', () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-home-')));
    const project = join(home, 'p');
    mkdirSync(project);
    writeFileSync(join(home, 'AGENTS.md'), 'once');
    expect(findAgentsFiles(project, home)).toEqual([join(home, 'AGENTS.md')]);
  });
});

