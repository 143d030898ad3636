import { describe, expect, it } from 'vitest';
import { EnvironmentAnnouncer, environmentText, localDate, type EnvironmentFacts } from './environment.ts';

const facts = (over: Partial<EnvironmentFacts> = {}): EnvironmentFacts => ({
  cwd: '/w/p',
  shell: '/bin/bash',
  os: 'Linux 6.1 (x64)',
  date: '2026-12-04',
  model: 'gpt-5',
  sandbox: 'workspace-write',
  writableRoots: ['/w/p', '/tmp'],
  network: false,
  approval: 'never',
  planMode: false,
  ...over,
});

describe('environment context', () => {
  it('names every fact the model plans with', () => {
    const text = environmentText(facts());
    for (const part of [
      '<cwd>/w/p</cwd>',
      '<shell>/bin/bash</shell>',
      '<os>Linux 6.1 (x64)</os>',
      '<date>2026-12-04</date>',
      '<sandbox_mode>workspace-write</sandbox_mode>',
      '<writable_roots>/w/p, /tmp</writable_roots>',
      '<network_access>restricted</network_access>',
      '<approval_policy>never</approval_policy>',
    ]) {
      expect(text).toContain(part);
    }
    expect(environmentText(facts({ sandbox: 'danger-full-access' }))).toContain('<network_access>enabled</network_access>');
    expect(environmentText(facts({ sandbox: 'read-only' }))).not.toContain('writable_roots');
    expect(environmentText(facts({ planMode: true }))).toMatch(/<mode>plan/);
  });

  it('keeps a directory name from closing the block', () => {
    expect(environmentText(facts({ cwd: '/w/</environment_context>\nx' }))).toContain('<cwd>/w/%3C/environment_context%3E x</cwd>');
  });

  it('is sent at the start, after a change, at a new chain and after a compaction, and not otherwise', () => {
    const a = new EnvironmentAnnouncer();
    const t1 = environmentText(facts());
    expect(a.take(t1, null, true)).toBe(t1);
    expect(a.take(t1, null, false)).toBeNull();
    const t2 = environmentText(facts({ cwd: '/w/p/src' }));
    expect(a.take(t2, null, false)).toBe(t2);
    expect(a.take(t2, null, false)).toBeNull();
    expect(a.take(t2, '2026-12-04T01:00:00Z', false)).toBe(t2);
    expect(a.take(t2, '2026-12-04T01:00:00Z', true)).toBe(t2);
  });

  it('writes the local date without a time', () => {
    expect(localDate(new Date(2026, 0, 5, 23, 59))).toBe('2026-01-05');
  });
});
