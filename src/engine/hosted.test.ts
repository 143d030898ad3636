// Hosted tools through the engine with a real store: server-side items are shown, never
// journaled; approval requests are journaled like calls and answered exactly once; view_image's
// image follows the outputs as path + hash; generated images land in files, not in the state.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../model/errors.ts';
import { materializeImages } from '../model/local-images.ts';
import { loadState } from '../store/store.ts';
import { IMAGES_DIR, createImageGenerationTool } from '../tools/hosted/image-generation.ts';
import { createRemoteMcpTool, type ApprovalQuestion, type RemoteMcpServer } from '../tools/hosted/remote-mcp.ts';
import { createWebSearchTool } from '../tools/hosted/web-search.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { createViewImageTool } from '../tools/view-image.ts';
import type { HostedItem, McpApprovalRequestItem } from '../wire/items.ts';
import { Engine } from './engine.ts';
import { HostedItems } from './hosted.ts';
import { harness, permissionsIn, scriptedPerson, type Harness } from '../../test/support/engine.ts';
import type { PersonQuestion } from './questions.ts';

const TINY_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const signal = (): AbortSignal => new AbortController().signal;
const search: HostedItem = { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'node 24' } };
const SERVER: RemoteMcpServer = {
  name: 'docs',
  label: 'docs',
  url: 'https://docs.example/mcp',
  headers: { Authorization: 'Bearer tok-123456' },
  requireApproval: 'always',
};
const approval = (id: string): McpApprovalRequestItem => ({
  type: 'mcp_approval_request',
  call_id: id,
  server_label: 'docs',
  name: 'search',
  arguments: '{"q":"x"}',
});

/** A harness whose person answers remote MCP approvals on the question channel (recorded in `asked`). */
function approving(h: Harness, asked: ApprovalQuestion[], approve = true): PersonQuestion[] {
  return scriptedPerson(h, [], (q) => {
    if (q.remote !== undefined) asked.push(q.remote);
    return approve ? { answer: { kind: 'once' }, decidedBy: 'person' } : { answer: { kind: 'no' }, decidedBy: 'policy', reason: 'nobody to ask' };
  });
}

const remoteTool = (): ReturnType<typeof createRemoteMcpTool> => createRemoteMcpTool([SERVER]);

describe('hosted tools in a turn', () => {
  it('shows a web search as it starts and ends, lists sources once per URL, and journals nothing', async () => {
    const cite = (url: string, title: string) => ({ url, title, start_index: 0, end_index: 1 });
    const h = harness(
      [
        {
          text: 'Node 24 is out.',
          hosted: [search],
          citations: [cite('https://a.example', 'A'), cite('https://b.example', 'B'), cite('https://a.example', 'A')],
        },
      ],
      [createWebSearchTool()],
    );
    const outcome = await new Engine(h.deps).message('news?', [], signal());
    expect(outcome.kind).toBe('done');
    expect(h.client.requests[0]?.tools).toContainEqual({ type: 'web_search' });
    const shown = h.events
      .filter((e) => e.type === 'web_search' || e.type === 'sources' || e.type === 'turn_done')
      .map((e) => (e.type === 'web_search' ? e.status : e.type));
    expect(shown).toEqual(['searching', 'done', 'sources', 'turn_done']);
    expect(h.events.find((e) => e.type === 'sources')).toEqual({
      type: 'sources',
      sources: [
        { index: 1, url: 'https://a.example', title: 'A' },
        { index: 2, url: 'https://b.example', title: 'B' },
      ],
    });
    expect(h.store.state.pending_tool_calls).toEqual([]);
    expect(readFileSync(h.store.path, 'utf8')).not.toContain('web_search_call');
  });

  it('shows items from the completed response when the stream announced none, each once', () => {
    const events: unknown[] = [];
    const registry = new ToolRegistry([createWebSearchTool()]);
    const hosted = new HostedItems({ registry, emit: (e) => events.push(e), workspaceRoot: '/nowhere', now: () => new Date() });
    hosted.onItem(search, 'done');
    hosted.finish({
      id: 'r',
      status: 'completed',
      text: '',
      toolCalls: [],
      items: [],
      usage: { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0 },
      hosted: [search],
    });
    expect(events).toEqual([{ type: 'web_search', id: 'ws_1', status: 'done', action: 'search', query: 'node 24' }]);
  });

  it('saves a generated image under .agentx_images (ignored by git) and keeps no base64 in the state', async () => {
    const image: HostedItem = { type: 'image_generation_call', id: 'ig_abc123', status: 'completed', result: TINY_PNG };
    const h = harness([{ text: 'Here it is.', hosted: [image] }], [createImageGenerationTool()]);
    await new Engine(h.deps).message('draw a dot', [], signal());
    const saved = h.events.find((e) => e.type === 'image_generation' && e.status === 'saved');
    expect(saved).toMatchObject({ path: expect.stringMatching(/\.agentx_images\/\d{8}-\d{6}-\d{3}-abc123\.png$/) as unknown, bytes: 70 });
    const files = readdirSync(join(h.dir, IMAGES_DIR));
    expect(files.sort()).toEqual(['.gitignore', expect.stringMatching(/\.png$/) as unknown]);
    expect(readFileSync(join(h.dir, IMAGES_DIR, '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(readFileSync(h.store.path, 'utf8')).not.toContain(TINY_PNG.slice(0, 40));
  });

  it('asks an approval request once on the question channel, journaled, as an mcp_approval_response; untrusted does not confirm it again', async () => {
    const asked: ApprovalQuestion[] = [];
    const h = harness([{ text: '', calls: [approval('mcpr_1')] }, { text: 'done' }], [remoteTool()]);
    permissionsIn(h, 'untrusted');
    const questions = approving(h, asked);
    expect((await new Engine(h.deps).message('use docs', [], signal())).kind).toBe('done');
    expect(questions.map((q) => q.kind)).toEqual(['remote_mcp']);
    expect(h.events.filter((e) => e.type === 'approval_decided')).toEqual([
      { type: 'approval_decided', callId: 'mcpr_1', kind: 'remote_mcp', decision: 'once', decidedBy: 'person', text: undefined, reason: undefined },
    ]);
    expect(h.client.requests[0]?.tools).toContainEqual({
      type: 'mcp',
      server_label: 'docs',
      server_url: 'https://docs.example/mcp',
      headers: { Authorization: 'Bearer tok-123456' },
      require_approval: 'always',
    });
    expect(asked).toEqual([{ server: 'docs', tool: 'search', arguments: '{"q":"x"}' }]);
    expect(h.client.requests[1]?.input).toEqual([{ type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true }]);
    // Reported once, by the question channel: exactly one request/decision pair, no line of the tool's own.
    const reported = h.events.filter((e) => JSON.stringify(e).includes('mcpr_1') && e.type !== 'tool_call').map((e) => e.type);
    expect(reported).toEqual(['approval_requested', 'approval_decided']);
  });

  it('an answer recorded before the request failed is resent by Retry, and not asked again', async () => {
    const asked: ApprovalQuestion[] = [];
    const h = harness([{ text: '', calls: [approval('mcpr_2')] }, { fail: new ModelError('boom', 'fatal') }], [remoteTool()]);
    approving(h, asked, false);
    expect((await new Engine(h.deps).message('use docs', [], signal())).kind).toBe('failed');
    // A new process: the state from disk, a fresh engine.
    const loaded = loadState(h.store.path, new Date());
    const again = harness([{ text: 'ok' }], [remoteTool()], { initial: loaded.state });
    approving(again, asked);
    expect((await new Engine(again.deps).retryFailed(signal())).kind).toBe('done');
    expect(asked).toHaveLength(1);
    expect(again.client.requests[0]?.input).toEqual([
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_2', approve: false, reason: 'nobody to ask' },
    ]);
  });

  it('an answered approval left unsent by a crash goes with the next message, unasked', async () => {
    const asked: ApprovalQuestion[] = [];
    const h = harness([{ text: '', calls: [approval('mcpr_3')] }, { hang: true }], [remoteTool()]);
    approving(h, asked);
    const controller = new AbortController();
    const turn = new Engine(h.deps).message('use docs', [], controller.signal);
    // The follow-up request hangs: the answer is journaled by then. Stop the turn as a crash would.
    while (h.client.requests.length < 2) await new Promise((r) => setImmediate(r));
    controller.abort();
    await turn;
    const loaded = loadState(h.store.path, new Date()).state;
    expect(loaded.pending_tool_calls).toMatchObject([{ call_id: 'mcpr_3', status: 'completed', output: { approve: true } }]);
    const next = harness([{ text: 'ok' }], [remoteTool()], { initial: loaded });
    approving(next, asked);
    await new Engine(next.deps).message('go on', [], signal());
    expect(asked).toHaveLength(1);
    expect(next.client.requests[0]?.input[0]).toEqual({ type: 'mcp_approval_response', approval_request_id: 'mcpr_3', approve: true });
  });

  it('view_image: the image follows the outputs as path + hash, read and inlined only when sent', async () => {
    const h = harness(
      [{ text: '', calls: [{ type: 'function_call', call_id: 'v1', name: 'view_image', arguments: '{"path":"shot.png"}' }] }, { text: 'a dot' }],
      [createViewImageTool()],
    );
    writeFileSync(join(h.dir, 'shot.png'), Buffer.from(TINY_PNG, 'base64'));
    await new Engine(h.deps).message('look at shot.png', [], signal());
    const input = h.client.requests[1]?.input ?? [];
    expect(input[0]).toMatchObject({
      type: 'function_call_output',
      call_id: 'v1',
      output: expect.stringMatching(/^Attached shot\.png \(PNG, 1×1, 70 bytes\)/) as unknown,
    });
    expect(input[1]).toMatchObject({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text' },
        { type: 'local_image', path: join(h.dir, 'shot.png'), mime: 'image/png', bytes: 70, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown },
      ],
    });
    const sent = await materializeImages(input);
    expect(sent[1]?.type === 'message' && sent[1].content[1]).toEqual({ type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${TINY_PNG}` });
    expect(existsSync(h.store.path) && readFileSync(h.store.path, 'utf8')).not.toContain(TINY_PNG.slice(0, 40));
  });

  it('rollback across turns that used hosted tools restores the chain head; nothing hosted is pending', async () => {
    const asked: ApprovalQuestion[] = [];
    const h = harness(
      [{ text: 'searched', hosted: [search] }, { text: '', calls: [approval('mcpr_4')] }, { text: 'called' }],
      [createWebSearchTool(), remoteTool()],
    );
    approving(h, asked);
    const engine = new Engine(h.deps);
    await engine.message('one', [], signal());
    const first = h.store.state.response_id;
    await engine.message('two', [], signal());
    expect(h.store.state.history).toHaveLength(2);
    await engine.rollback(2);
    expect(h.store.state.response_id).toBe(first);
    expect(h.store.state.pending_tool_calls).toEqual([]);
  });
});
