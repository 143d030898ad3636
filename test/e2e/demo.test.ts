// `npm run demo` end to end: the built demo (dist/demo.js via scripts/demo.mjs) plays every
// section against the emulator, exits 0, prints a clean transcript to a pipe and leaves nothing
// behind.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECTIONS } from '../demo/story.ts';
import { REPO } from './harness.ts';

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // The developer's keys and base URL must not matter: the demo builds its own environment.
    const env = { ...process.env, AGENTX_API_KEY: 'must-not-be-used', AGENTX_BASE_URL: 'http://127.0.0.1:9/v1' };
    const child = spawn(process.execPath, [join(REPO, 'scripts/demo.mjs')], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run demo', () => {
  it('plays every section, exits 0, and prints a plain transcript', async () => {
    const { code, stdout, stderr } = await runDemo();
    expect(stderr).toBe('');
    expect(code).toBe(0);
    SECTIONS.forEach((section, i) => {
      expect(stdout).toContain(`── ${i + 1}/${SECTIONS.length}  ${section.title} ─`);
    });
    // What each section shows, as agentx printed it.
    for (const evidence of [
      '$ sh greet.sh',
      'M greet.sh +1 -1',
      '+echo "Hello, agentx"',
      'How do you want to go on?',
      '↺ already ran, sending its recorded output',
      'Rolled back to checkpoint 2',
      'resending the conversation from the local log (nothing runs again)',
      '$ agentx "run: sh greet.sh"',
      "the one-shot continued from the REPL's checkpoint",
      'demo finished in',
    ]) {
      expect(stdout).toContain(evidence);
    }
    // A pipe gets no colours and no cursor movement; redrawn screens appear once.
    expect(stdout).not.toContain('\x1b');
    expect(stdout).not.toContain('\r');
    expect(stdout).not.toContain('thinking… (Ctrl-C to cancel)');
    expect(stdout.match(/How do you want to go on\?/g)).toHaveLength(1);
    // The temporary project is removed.
    const project = /project: ~\/project = (\S+)/.exec(stdout)?.[1] ?? '';
    expect(project).not.toBe('');
    expect(existsSync(project)).toBe(false);
  }, 90_000);
});
