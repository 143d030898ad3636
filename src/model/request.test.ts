import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildInstructions, buildRequest, findAgentsFiles, shellTools, supportsReasoning } from './request.ts';

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
    const text = buildInstructions(project, home, '/bin/bash');
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

describe('request building', () => {
  const shape = { model: 'gpt-5', instructions: 'sys', tools: shellTools('builtin'), reasoningEffort: undefined };

  it('always stores and streams, and chains only when there is a previous response', () => {
    const first = buildRequest(shape, [], null);
    expect(first).toMatchObject({ store: true, stream: true, model: 'gpt-5', instructions: 'sys' });
    expect('previous_response_id' in first).toBe(false);
    expect(buildRequest(shape, [], 'resp_1').previous_response_id).toBe('resp_1');
  });

  it('asks for reasoning summaries only from models that reason', () => {
    expect(buildRequest(shape, [], null).reasoning).toEqual({ summary: 'auto' });
    expect(buildRequest({ ...shape, reasoningEffort: 'high' }, [], null).reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(buildRequest({ ...shape, model: 'gpt-4.1' }, [], null).reasoning).toBeUndefined();
    expect(supportsReasoning('o4-mini')).toBe(true);
    expect(supportsReasoning('llama3.1:8b')).toBe(false);
  });

  it('offers the built-in shell tool or a strict function named shell', () => {
    expect(shellTools('builtin')).toEqual([{ type: 'shell', environment: { type: 'local' } }]);
    const [fn] = shellTools('function') as { type: string; name: string; strict: boolean; parameters: { required: string[] } }[];
    expect(fn).toMatchObject({ type: 'function', name: 'shell', strict: true });
    expect(fn?.parameters.required).toEqual(['commands', 'timeout_ms', 'workdir']);
  });
});
