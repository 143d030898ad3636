// Hosted tools and images in the REPL (a real pty against the emulator): web search with its
// sources, a generated image saved, /image attached and kept as path + hash through a failed
// request and Retry, and remote MCP approvals asked of the person — answered once even when
// agentx is killed before the answer was sent — with the header value in no file written.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from '../emulator/hosted.ts';
import { sandbox, type Sandbox } from './harness.ts';
import { KEY } from './pty.ts';
import { body, prompt, readState, replSuite, turn } from './repl-fixtures.ts';

const suite = replSuite();
const TOKEN = 'repl-docs-token-8c41d2';
const PNG = Buffer.from(TINY_PNG_BASE64, 'base64');

function remoteServer(sb: Sandbox): void {
  const path = join(sb.home, '.config', 'agentx', 'mcp.json');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    JSON.stringify({ mcpServers: { docs: { type: 'remote', url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } } } }),
  );
  sb.env.DOCS_TOKEN = TOKEN;
}

function filesContaining(dir: string, needle: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) return filesContaining(path, needle);
    return st.isFile() && readFileSync(path).includes(needle) ? [path] : [];
  });
}

interface Input {
  type: string;
  approval_request_id?: string;
  role?: string;
  content?: { type: string; image_url?: string }[];
}
const inputOf = (i: number): Input[] => (body(suite.emu.requests[i]).input ?? []) as Input[];

describe('hosted tools in the REPL', () => {
  it('web search, a generated image, and /image kept as path + hash through a failed request and Retry', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    writeFileSync(join(sb.cwd, 'shot.png'), PNG);
    const a = suite.start(sb, ['--web-search', 'on', '--image-generation', 'on']);
    await prompt(a);
    await turn(a, 'search: node 24', 'Sources:');
    expect(a.screen()).toContain('🔎 searched "node 24"');
    expect(a.screen()).toMatch(/\[1\] Example One — https:\/\/example\.com\/one\s+\[2\] Example Two — https:\/\/example\.org\/two/);

    await turn(a, 'draw: a dot', /image saved: \S+\.png/);
    const saved = readdirSync(join(sb.cwd, '.agentx_images')).filter((f) => f.endsWith('.png'));
    expect(saved).toHaveLength(1);
    expect(readFileSync(join(sb.cwd, '.agentx_images', saved[0] ?? ''))).toEqual(PNG);

    a.line('/image shot.png');
    await a.waitFor(`📎 shot.png (PNG, 1×1, ${PNG.length} bytes) will be sent with your next message`);
    await prompt(a);
    // The first send fails for good (a 400): the request is kept for Retry, image as path + hash.
    suite.emu.enqueue({ kind: 'http_error', status: 400, message: 'bad request, try again' });
    a.line('what is in this picture?');
    await a.waitFor('What now?');
    const kept = readState(sb).pending_transaction?.input ?? [];
    const sha = createHash('sha256').update(PNG).digest('hex');
    expect(kept).toContainEqual({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'what is in this picture?' },
        { type: 'local_image', path: join(sb.cwd, 'shot.png'), sha256: sha, bytes: PNG.length, mime: 'image/png' },
      ],
    });
    expect(readFileSync(join(sb.cwd, '.agentx_responseid'), 'utf8')).not.toContain(TINY_PNG_BASE64.slice(0, 40));
    a.write('1');
    a.write(KEY.enter);
    await a.waitFor(`I received 1 image: image/png ${PNG.length} bytes sha256:${sha}`);
    await prompt(a);
    // Sent once: the next message carries no image.
    await turn(a, 'and now?', 'You said: and now?');
  });

  it('remote MCP: the person approves; killed before the answer was sent, the restart resends it without asking again', async () => {
    const sb = sandbox(suite.emu.baseUrl);
    remoteServer(sb);
    const a = suite.start(sb, ['--debug']);
    await prompt(a);
    a.line('mcp: search {"q":"first"}');
    await a.waitFor(/\? remote MCP server docs wants to run search \{"q":"first"\}\s+\[y\]es \/ \[n\]o: /);
    a.write('y');
    await a.waitFor('docs.search returned: result of search {"q":"first"}');
    await prompt(a);
    expect(a.screen()).toContain('⚙ docs.search ✓');

    a.line('mcp: search {"q":"second"}');
    await a.waitFor(/wants to run search \{"q":"second"\}/);
    // The answer is journaled, then its request hangs: agentx dies before the server has it.
    suite.emu.enqueue({ kind: 'hang' });
    const n = suite.emu.requests.length;
    a.write('y');
    await suite.emu.waitForRequests(n + 1);
    a.kill('SIGKILL');
    await a.exited;
    const journal = readState(sb).pending_tool_calls;
    // The answer itself is in the conversation log; the state file points at it (store/journal-outputs.ts).
    expect(journal).toMatchObject([{ type: 'mcp_approval_request', status: 'completed' }]);
    expect(typeof (journal[0] as { output_log?: unknown } | undefined)?.output_log).toBe('string');

    const b = suite.start(sb);
    await b.waitFor(/docs\.search \{"q":"second"\}\s+completed/);
    await b.waitFor('How do you want to go on?');
    b.write('1');
    b.write(KEY.enter);
    await b.waitFor('docs.search returned: result of search {"q":"second"}');
    await prompt(b);
    expect(b.screen()).not.toContain('wants to run');
    const resent = inputOf(suite.emu.requests.length - 1);
    expect(resent).toEqual([{ type: 'mcp_approval_response', approval_request_id: journal[0]?.call_id, approve: true }]);
    b.line('quit');
    await b.exited;
    expect(filesContaining(dirname(sb.home), TOKEN)).toEqual([]);
  });
});
