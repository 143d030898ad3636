// The demo's pty driver against a tiny real program: a wait that cannot succeed fails with the
// section and step named and what was on screen; a menu choice is read from the screen.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DemoStepError, PtySession } from './session.ts';
import { createTranscript } from './transcript.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentx-demo-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Shows a menu, echoes the raw keys it gets, exits on "q".
const program = join(dir, 'menu.mjs');
writeFileSync(
  program,
  `process.stdout.write('Pick\\r\\n  1. Red\\r\\n  2. Blue\\r\\nEsc to cancel: ');
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  const s = d.toString();
  if (s.includes('q')) process.exit(3);
  if (s === '2') process.stdout.write('\\r\\x1b[3A\\x1b[JPick\\r\\n  1. Red\\r\\n❯ 2. Blue\\r\\nEsc to cancel: 2');
  if (s === '\\r') process.stdout.write('\\r\\nchose Blue\\r\\n');
});
`,
);

function start(): { session: PtySession; printed: string[] } {
  const printed: string[] = [];
  const transcript = createTranscript({ write: (t: string) => printed.push(t) }, {});
  const session = new PtySession({ cli: program, cwd: dir, env: { PATH: process.env.PATH }, transcript, progress: { section: 'the test section' } });
  return { session, printed };
}

describe('PtySession', () => {
  it('a wait that times out names the section, the step, the pattern and the screen', async () => {
    const { session } = start();
    await session.waitFor('Esc to cancel', 'the menu');
    const err: unknown = await session.waitFor('never shown', 'waiting for the impossible', 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DemoStepError);
    const message = err instanceof Error ? err.message : '';
    expect(message).toContain('in "the test section", step "waiting for the impossible"');
    expect(message).toContain('"never shown" appeared within 0.3 s');
    expect(message).toContain('|   2. Blue');
    session.kill();
    await session.exited;
  });

  it('a wait fails at once when the program exits', async () => {
    const { session } = start();
    await session.waitFor('Esc to cancel', 'the menu');
    session.write('q');
    const err: unknown = await session.waitFor('never shown', 'after quitting').catch((e: unknown) => e);
    expect(err instanceof Error ? err.message : '').toContain('step "after quitting": agentx exited while waiting for "never shown"');
    expect(await session.exited).toBe(3);
  });

  it('choose types the number shown beside the label, Enter once it is highlighted, and the transcript shows the final menu', async () => {
    const { session, printed } = start();
    await session.choose('Blue', 'choose blue');
    await session.waitFor('chose Blue', 'the program got 2 then Enter');
    session.settle();
    session.kill();
    await session.exited;
    expect(printed.join('')).toBe('│ Pick\n│   1. Red\n│ ❯ 2. Blue\n│ Esc to cancel: 2\n│ chose Blue\n');
  });
});
