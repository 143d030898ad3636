// No orphan MCP server after agentx dies without running any code: a process holding a manager
// (test/mcp/fixtures/holder.ts, bundled here with esbuild like the real CLI) is SIGKILLed in the
// middle of a call; its server and the server's own child must go away.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../support/tools.ts';
import { readMarks, stdioSpec, tempDir, waitUntil } from './helpers.ts';
import type { TempDir } from './helpers.ts';

let dir: TempDir;
let holderJs = '';

beforeAll(async () => {
  dir = tempDir();
  holderJs = join(dir.path, 'holder.mjs');
  await build({
    entryPoints: [new URL('./fixtures/holder.ts', import.meta.url).pathname],
    outfile: holderJs,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
});

afterAll(() => dir.cleanup());

describe('kill -9 of the process holding the manager', () => {
  it('leaves no server process behind, even during a call', async () => {
    const spec = stdioSpec('t', ['spawn-child', 't', 'slow']);
    const holder = spawn(process.execPath, [holderJs, JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, MCP_TEST_MARK_DIR: dir.path },
    });
    let out = '';
    holder.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
    });
    try {
      const serverPid = Number(await waitUntil(() => /ready (\d+)/.exec(out)?.[1], 'the holder to start its server', 20_000));
      await waitUntil(() => (readMarks(dir.path).some((l) => l.startsWith('slow-started')) ? true : undefined), 'the call to reach the server');
      const grandchild = Number(
        readMarks(dir.path)
          .find((l) => l.startsWith('grandchild-pid'))
          ?.split(' ')[1],
      );
      expect(isAlive(serverPid) && isAlive(grandchild)).toBe(true);
      holder.kill('SIGKILL');
      expect(await waitUntil(() => (isAlive(serverPid) ? undefined : true), 'the server to die', 10_000)).toBe(true);
      expect(await waitUntil(() => (isAlive(grandchild) ? undefined : true), "the server's child to die", 10_000)).toBe(true);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
