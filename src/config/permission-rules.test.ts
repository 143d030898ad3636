// The rules files as agentx reads them (real files in a temp home and project) and the approval
// mode's sources: a project's deny/ask rules apply at once, its allow rules wait for the person.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideLine } from '../tools/permissions/rules.ts';
import { resolveConfig } from './config.ts';
import { approveProjectRules, loadPermissionRules } from './permission-rules.ts';

function home(): { env: NodeJS.ProcessEnv; project: string } {
  const dir = mkdtempSync(join(tmpdir(), 'agentx-permrules-'));
  const project = join(dir, 'project');
  mkdirSync(join(project, '.agentx'), { recursive: true });
  const env = {
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'home', '.config'),
    XDG_STATE_HOME: join(dir, 'home', '.state'),
    AGENTX_CONFIG: join(dir, 'home', '.agentx'),
  };
  return { env, project };
}

function writeProject(project: string, commands: unknown[]): void {
  writeFileSync(join(project, '.agentx', 'rules.json'), JSON.stringify({ commands }));
}

describe('project rules', () => {
  it('deny and ask apply at once; allow is inactive until approved, and an edit asks again', () => {
    const { env, project } = home();
    writeProject(project, [
      { prefix: ['rm', '-rf'], decision: 'deny' },
      { prefix: ['git', 'push'], decision: 'ask' },
      { prefix: ['npm', 'test'], decision: 'allow' },
    ]);
    const first = loadPermissionRules(env, project);
    expect(decideLine('rm -rf x', first.rules).decision).toBe('deny');
    expect(decideLine('git push', first.rules).reasons[0]).toContain('asks by');
    expect(decideLine('npm test', first.rules).decision).toBe('ask');
    expect(first.inactive.map((r) => r.prefix)).toEqual([['npm', 'test']]);
    expect(first.notices.join('\n')).toMatch(/1 allow rule is not in force until you approve it/);
    expect(approveProjectRules(env, first, new Date()).map((r) => r.prefix)).toEqual([['npm', 'test']]);
    const second = loadPermissionRules(env, project);
    expect(decideLine('npm test', second.rules).decision).toBe('allow');
    expect(second.inactive).toEqual([]);
    // An edited file is a new content: its allow rules wait again.
    writeProject(project, [
      { prefix: ['npm', 'test'], decision: 'allow' },
      { prefix: ['curl'], decision: 'allow' },
    ]);
    const third = loadPermissionRules(env, project);
    expect(decideLine('curl x', third.rules).decision).toBe('ask');
    expect(third.inactive).toHaveLength(2);
  });

  it('each rule says where it comes from (what /permissions lists)', () => {
    const { env, project } = home();
    mkdirSync(join(env.XDG_CONFIG_HOME as string, 'agentx'), { recursive: true });
    writeFileSync(join(env.XDG_CONFIG_HOME as string, 'agentx', 'rules.json'), JSON.stringify({ commands: [{ prefix: ['pytest'], decision: 'allow' }] }));
    writeProject(project, [{ prefix: ['rm', '-rf'], decision: 'deny' }]);
    const loaded = loadPermissionRules(env, project);
    expect(loaded.rules.map((r) => [r.prefix.join(' '), r.source])).toEqual([
      ['pytest', join(env.XDG_CONFIG_HOME as string, 'agentx', 'rules.json')],
      ['rm -rf', join(project, '.agentx', 'rules.json')],
    ]);
  });
});

describe('AGENTX_APPROVAL', () => {
  it('sets the mode from the environment or the config file; the flag wins; a bad value is one clear error', () => {
    const { env } = home();
    expect(resolveConfig({}, env).approval).toBeUndefined();
    expect(resolveConfig({}, { ...env, AGENTX_APPROVAL: 'untrusted' }).approval).toBe('untrusted');
    expect(resolveConfig({ approval: 'never' }, { ...env, AGENTX_APPROVAL: 'untrusted' }).approval).toBe('never');
    mkdirSync(env.HOME as string, { recursive: true });
    writeFileSync(env.AGENTX_CONFIG as string, 'AGENTX_APPROVAL=on-request\n');
    expect(resolveConfig({}, env).approval).toBe('on-request');
    expect(() => resolveConfig({}, { ...env, AGENTX_APPROVAL: 'sometimes' })).toThrow(
      'AGENTX_APPROVAL: expected untrusted, on-request, never, got "sometimes"',
    );
  });
});
