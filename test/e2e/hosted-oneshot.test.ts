// Hosted tools and images in one-shots (--json), the built CLI against the emulator: web search
// with sources, image generation into .agentx_images, view_image, remote MCP (the one-shot
// approval policy, "never"), and remote MCP header values in no file agentx writes.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { TINY_PNG_BASE64 } from '../emulator/hosted.ts';
import { runCli, sandbox, type Sandbox } from './harness.ts';

let emu: Emulator;
let box: Sandbox;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  box = sandbox(emu.baseUrl);
});

interface Line {
  type: string;
  [key: string]: unknown;
}
const lines = (stdout: string): Line[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
const ofType = (all: Line[], type: string): Line[] => all.filter((l) => l.type === type);
interface Body {
  tools: { type: string; name?: string; headers?: Record<string, string> }[];
  input: { type: string; role?: string; content?: { type: string; image_url?: string }[] }[];
}
const bodyOf = (i: number): Body => emu.requests[i]?.body as Body;

const TOKEN = 'docs-token-5f3a9c1e77';

function remoteServer(sb: Sandbox, entry: Record<string, unknown> = {}): void {
  const path = join(sb.home, '.config', 'agentx', 'mcp.json');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    JSON.stringify({ mcpServers: { docs: { type: 'remote', url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' }, ...entry } } }),
  );
  sb.env.DOCS_TOKEN = TOKEN;
}

/** Every regular file under `dir` (the sandbox: project, home, logs, state) that contains `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) hits.push(...filesContaining(path, needle));
    else if (st.isFile() && readFileSync(path).includes(needle)) hits.push(path);
  }
  return hits;
}

describe('hosted tools in one-shots', () => {
  it('web search: off by default for a non-OpenAI server; on, it is offered and its search and sources are JSON events', async () => {
    const before = emu.requests.length;
    expect((await runCli(['hi'], box)).code).toBe(0);
    expect(bodyOf(before).tools.map((t) => t.type)).not.toContain('web_search');

    const r = await runCli(['--web-search', 'on', '--json', 'search: node 24'], box);
    expect(r.code).toBe(0);
    expect(bodyOf(before + 1).tools).toContainEqual({ type: 'web_search' });
    const out = lines(r.stdout);
    expect(ofType(out, 'web_search')).toEqual([
      { type: 'web_search', id: expect.any(String) as unknown, status: 'searching', action: 'search', query: null, url: null },
      { type: 'web_search', id: expect.any(String) as unknown, status: 'done', action: 'search', query: 'node 24', url: null },
    ]);
    expect(ofType(out, 'sources')).toEqual([
      {
        type: 'sources',
        sources: [
          { index: 1, url: 'https://example.com/one', title: 'Example One' },
          { index: 2, url: 'https://example.org/two', title: 'Example Two' },
        ],
      },
    ]);
    expect(out.at(-1)).toMatchObject({ type: 'final', text: 'Found it: see Example One and Example Two.' });
  });

  it('web search without --json: the sources follow the answer on stdout, the search line is on stderr', async () => {
    const r = await runCli(['--web-search', 'on', 'search: node 24'], box);
    expect(r.stdout).toBe(
      'Found it: see Example One and Example Two.\nSources:\n  [1] Example One — https://example.com/one\n  [2] Example Two — https://example.org/two\n',
    );
    expect(r.stderr).toContain('🔎 searched "node 24"');
  });

  it('image generation: offered only with the flag; the image is a PNG file under .agentx_images, its path in the event', async () => {
    const r = await runCli(['--image-generation', 'on', '--json', 'draw: a dot'], box);
    expect(r.code).toBe(0);
    const saved = ofType(lines(r.stdout), 'image_generation').find((l) => l.status === 'saved');
    const path = String(saved?.path);
    expect(dirname(path)).toBe(join(box.cwd, '.agentx_images'));
    expect(readFileSync(path)).toEqual(Buffer.from(TINY_PNG_BASE64, 'base64'));
    expect(r.stdout).not.toContain(TINY_PNG_BASE64.slice(0, 40));
  });

  it('view_image: the file goes to the model as an input_image data URL after the call output', async () => {
    const png = Buffer.from(TINY_PNG_BASE64, 'base64');
    writeFileSync(join(box.cwd, 'shot.png'), png);
    emu.enqueue({ kind: 'function', name: 'view_image', arguments: JSON.stringify({ path: 'shot.png' }) });
    const before = emu.requests.length;
    const r = await runCli(['--json', 'look at shot.png'], box);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    const sha = createHash('sha256').update(png).digest('hex');
    expect(ofType(out, 'image_attached')).toEqual([
      { type: 'image_attached', call_id: expect.any(String) as unknown, path: join(box.cwd, 'shot.png'), mime: 'image/png', bytes: png.length, sha256: sha },
    ]);
    const follow = bodyOf(before + 1).input;
    expect(follow.map((i) => i.type)).toEqual(['function_call_output', 'message']);
    expect(follow[1]?.content?.[1]).toEqual({ type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${TINY_PNG_BASE64}` });
    expect(out.at(-1)).toMatchObject({ type: 'final', text: `I received 1 image: image/png ${png.length} bytes sha256:${sha}` });
  });

  it('view_image refuses what the sandbox hides (~/.ssh, directly or through a symlink in the project); danger-full-access does not', async () => {
    const png = Buffer.from(TINY_PNG_BASE64, 'base64');
    mkdirSync(join(box.home, '.ssh'), { recursive: true });
    writeFileSync(join(box.home, '.ssh', 'key.png'), png);
    symlinkSync(join(box.home, '.ssh', 'key.png'), join(box.cwd, 'innocent.png'));
    symlinkSync(join(box.home, '.ssh'), join(box.cwd, 'keys'));
    for (const path of [join(box.home, '.ssh', 'key.png'), 'innocent.png', join(box.home, '.ssh', 'absent.png'), 'keys/absent.png']) {
      emu.enqueue({ kind: 'function', name: 'view_image', arguments: JSON.stringify({ path }) });
      const before = emu.requests.length;
      const r = await runCli(['--json', 'look'], box);
      expect(r.code).toBe(0);
      const follow = bodyOf(before + 1).input;
      expect(follow.map((i) => i.type)).toEqual(['function_call_output']);
      expect(JSON.stringify(follow)).toContain('is hidden by the sandbox');
      expect(JSON.stringify(follow)).not.toContain(TINY_PNG_BASE64.slice(0, 40));
    }
    emu.enqueue({ kind: 'function', name: 'view_image', arguments: JSON.stringify({ path: 'innocent.png' }) });
    const before = emu.requests.length;
    const r = await runCli(['--json', '--sandbox', 'danger-full-access', 'look'], box);
    expect(r.code).toBe(0);
    expect(bodyOf(before + 1).input.map((i) => i.type)).toEqual(['function_call_output', 'message']);
  });

  it('remote MCP: an approval request is denied by the one-shot policy and said; the token reaches the server and no file', async () => {
    remoteServer(box);
    const before = emu.requests.length;
    const r = await runCli(['--debug', '--json', 'mcp: search {"q":"x"}'], box);
    expect(r.code).toBe(0);
    expect(bodyOf(before).tools).toContainEqual({
      type: 'mcp',
      server_label: 'docs',
      server_url: 'https://docs.example/mcp',
      headers: { Authorization: `Bearer ${TOKEN}` },
      require_approval: 'always',
    });
    expect(r.stderr).toContain('agentx: remote MCP server docs asked to run search {"q":"x"}: denied (a one-shot cannot ask;');
    const out = lines(r.stdout);
    expect(ofType(out, 'remote_mcp_tools')).toMatchObject([{ server: 'docs', tools: ['search'] }]);
    expect(ofType(out, 'tool_call')).toMatchObject([{ kind: 'mcp_approval_request', tool: 'remote_mcp', title: 'docs.search {"q":"x"}' }]);
    // Reported once, on the question channel: one request/decision pair (the older mcp_approval line is gone).
    const approvals = out.filter((l) => ['approval_requested', 'approval_decided', 'mcp_approval'].includes(String(l.type)));
    expect(approvals).toEqual([
      expect.objectContaining({
        type: 'approval_requested',
        kind: 'remote_mcp',
        tool: 'docs',
        remote: { server: 'docs', tool: 'search', arguments: '{"q":"x"}' },
      }),
      expect.objectContaining({
        type: 'approval_decided',
        kind: 'remote_mcp',
        decision: 'no',
        decided_by: 'policy',
        reason: expect.stringMatching(/^denied/) as unknown,
      }),
    ]);
    expect(approvals[0]?.call_id).toBe(approvals[1]?.call_id);
    expect(bodyOf(before + 1).input).toEqual([
      {
        type: 'mcp_approval_response',
        approval_request_id: expect.any(String) as unknown,
        approve: false,
        reason: expect.stringMatching(/^denied/) as unknown,
      },
    ]);
    expect(out.at(-1)?.text).toMatch(/^docs\.search was not approved \(denied/);

    // A failed request whose error quotes the header: the state file is kept, and scrubbed.
    emu.enqueue({ kind: 'http_error', status: 400, message: `Invalid header: Bearer ${TOKEN}` });
    const failed = await runCli(['--debug', 'mcp: search'], box);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Invalid header: [REDACTED]');
    expect(readdirSync(box.cwd).some((f) => f.startsWith('.agentx_responseid.oneshot-'))).toBe(true);
    // The places the token would have gone are there, holding the redacted form.
    expect(filesContaining(box.cwd, 'Invalid header: [REDACTED]')).toHaveLength(1);
    expect(filesContaining(join(box.home, '.agentx-logs'), '"Authorization":"[REDACTED]"').length).toBeGreaterThan(0);
    const root = dirname(box.home);
    expect(filesContaining(root, TOKEN)).toEqual([]);
  });

  it('remote MCP with "require_approval": "never": the server calls at once, shown as a remote_mcp_call event', async () => {
    remoteServer(box, { require_approval: 'never' });
    const r = await runCli(['--json', 'mcp: search'], box);
    expect(r.code).toBe(0);
    expect(ofType(lines(r.stdout), 'remote_mcp_call')).toMatchObject([{ server: 'docs', tool: 'search', ok: true, error: null }]);
    expect(r.stderr).not.toContain('denied');
  });

  it('a remote server whose ${VAR} is unset is left out, in one line', async () => {
    remoteServer(box);
    delete box.env.DOCS_TOKEN;
    const before = emu.requests.length;
    const r = await runCli(['hi'], box);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('agentx: mcp: remote server "docs" is not offered: ${DOCS_TOKEN} is not set');
    expect(bodyOf(before).tools.map((t) => t.type)).not.toContain('mcp');
  });
});
