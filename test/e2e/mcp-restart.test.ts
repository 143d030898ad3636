// MCP calls across a crash, in a real pty: agentx is SIGKILLed during a slow MCP call; the
// stdio server dies with it (no orphan), and the restart shows the pending MCP call with the
// warning that MCP calls may not be idempotent; Continue does not send it again.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMarks, STDIO_SERVER } from '../mcp/helpers.ts';
import { sandbox, type Sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { prompt, readState, replSuite } from './repl-fixtures.ts';

const suite = replSuite();

// A name of its own, so this test's server can be found in the process table (inside the
// sandbox's PID namespace the server's own pid means nothing out here).
const SERVER = `kit${process.pid}`;

function withServer(): Sandbox {
  const sb = sandbox(suite.emu.baseUrl);
  sb.env.MCP_TEST_MARK_DIR = sb.cwd;
  mkdirSync(join(sb.home, '.config', 'agentx'), { recursive: true });
  writeFileSync(
    join(sb.home, '.config', 'agentx', 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        [SERVER]: { command: process.execPath, args: [STDIO_SERVER, 'serve', SERVER, 'slow,echo'] },
      },
    }),
  );
  return sb;
}

/** Whether the test server still runs (any process whose command line starts it). */
function serverRunning(): boolean {
  return execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
    .split('\n')
    .some((l) => l.includes(`serve ${SERVER} slow,echo`) && !l.startsWith('bwrap'));
}

describe('an MCP call when agentx dies', () => {
  it('leaves no server running, and the restart shows the pending call with the retry warning', async () => {
    const sb = withServer();
    const a = suite.start(sb);
    await prompt(a);
    // Servers start in the background (the prompt does not wait): ask /mcp until kit is ready.
    for (let i = 0; ; i++) {
      a.line('/mcp');
      const seen = await a.waitFor(new RegExp(`${SERVER}\\s+(ready|starting|failed)`));
      if (seen.includes('ready')) break;
      if (i > 50 || seen.includes('failed')) throw new Error(`MCP server ${SERVER} did not become ready: ${seen}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await prompt(a);
    expect(serverRunning()).toBe(true);
    suite.emu.enqueue({ kind: 'function', name: `mcp__${SERVER}__slow`, arguments: '{}' });
    a.line('wait for the slow tool');
    await expect.poll(() => readMarks(sb.cwd).some((m) => m.startsWith('slow-started')), { timeout: 15_000 }).toBe(true);
    expect(readState(sb).pending_tool_calls.map((c) => c.status)).toEqual(['started']);
    a.kill('SIGKILL');
    await a.exited;
    await expect.poll(serverRunning, { timeout: 5000 }).toBe(false);

    const n = suite.emu.requests.length;
    const b = suite.start(sb);
    await b.waitFor('The previous session stopped in the middle of a turn');
    await b.waitFor(new RegExp(`${SERVER}[^\\n]*slow[^\\n]*started, did not finish`));
    await b.waitFor('MCP calls may not be idempotent');
    await b.waitFor('How do you want to go on?');
    b.write('1');
    b.write(KEY.enter);
    await prompt(b);
    // Continue: the model is told the call may have run partly; the server saw one call only.
    expect(readMarks(sb.cwd).filter((m) => m.startsWith('slow-started'))).toHaveLength(1);
    expect(JSON.stringify(suite.emu.requests[n]?.body)).toMatch(/may have run partly/);
    b.line('quit');
    await b.exited;
  }, 60_000);
});
