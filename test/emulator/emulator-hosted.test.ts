// Hosted tools in the emulator, through the real SDK: web search with url citations, remote MCP
// (tool lists, calls, approval requests and their answers), image generation, and image inputs.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Tool } from 'openai/resources/responses/responses';
import { TINY_PNG_BASE64 } from './hosted.ts';
import { apiError, completed, text, useEmulator } from './test-kit.ts';

const kit = useEmulator();

const MCP: Tool = {
  type: 'mcp',
  server_label: 'docs',
  server_url: 'https://docs.example/mcp',
  headers: { Authorization: 'Bearer secret-token-123' },
  require_approval: 'always',
};

describe('hosted tools', () => {
  it('answers a web search with its item and a cited message', async () => {
    kit.emu.enqueue({
      kind: 'hosted',
      items: [{ type: 'web_search', query: 'node 24 release' }],
      text: 'Node 24 is out (Node.js blog).',
      citations: [{ url: 'https://nodejs.org/blog', title: 'Node.js blog' }],
    });
    const events = await kit.run({ input: 'what is new?', tools: [{ type: 'web_search' }] });
    const types = events.map((e) => e.type);
    expect(types.slice(2, 7)).toEqual([
      'response.output_item.added',
      'response.web_search_call.in_progress',
      'response.web_search_call.searching',
      'response.web_search_call.completed',
      'response.output_item.done',
    ]);
    expect(types).toContain('response.output_text.annotation.added');
    const response = completed(events);
    expect(response.output[0]).toMatchObject({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'node 24 release' } });
    const message = response.output[1];
    expect(message?.type === 'message' && message.content[0]).toMatchObject({
      annotations: [{ type: 'url_citation', url: 'https://nodejs.org/blog', title: 'Node.js blog', start_index: 16, end_index: 28 }],
    });
  });

  it('default brain: "search:" searches when web_search is offered, and only then', async () => {
    const searched = completed(await kit.run({ input: 'search: emulators', tools: [{ type: 'web_search' }] }));
    expect(searched.output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
    expect(text(await kit.run({ input: 'search: emulators' }))).toBe('You said: search: emulators');
  });

  it('an approval request waits for an answer; an approved call runs, a second answer or an unknown id is refused', async () => {
    const asked = completed(await kit.run({ input: 'mcp: search {"q":"x"}', tools: [MCP] }));
    expect(asked.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    const request = asked.output[1];
    if (request?.type !== 'mcp_approval_request') throw new Error('no approval request');
    expect(request).toMatchObject({ server_label: 'docs', name: 'search', arguments: '{"q":"x"}' });

    const answer = { type: 'mcp_approval_response' as const, approval_request_id: request.id, approve: true };
    const ranEvents = await kit.run({ input: [answer], previous_response_id: asked.id, tools: [MCP] });
    const ran = completed(ranEvents);
    expect(ran.output[0]).toMatchObject({
      type: 'mcp_call',
      server_label: 'docs',
      name: 'search',
      status: 'completed',
      output: 'result of search {"q":"x"}',
      approval_request_id: request.id,
    });
    expect(text(ranEvents)).toBe('docs.search returned: result of search {"q":"x"}');

    const twice = await apiError(kit.run({ input: [answer, answer], previous_response_id: asked.id, tools: [MCP] }));
    expect(twice.status).toBe(400);
    expect(twice.message).toMatch(/Duplicate MCP approval response/);
    const unknown = await apiError(kit.run({ input: [{ ...answer, approval_request_id: 'mcpr_nope' }], previous_response_id: asked.id, tools: [MCP] }));
    expect(unknown.message).toMatch(/No MCP approval request found with id mcpr_nope/);
  });

  it('a denied approval is acknowledged; "require_approval": "never" calls at once', async () => {
    const asked = completed(await kit.run({ input: 'mcp: fetch', tools: [MCP] }));
    const id = asked.output[1]?.id ?? '';
    const denied = await kit.run({
      input: [{ type: 'mcp_approval_response', approval_request_id: id, approve: false, reason: 'no' }],
      previous_response_id: asked.id,
      tools: [MCP],
    });
    expect(text(denied)).toBe('docs.fetch was not approved (no)');
    const direct = completed(await kit.run({ input: 'mcp: fetch', tools: [{ ...MCP, require_approval: 'never' }] }));
    expect(direct.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
  });

  it('image generation returns a PNG; image inputs are described with their hash', async () => {
    const drawn = completed(await kit.run({ input: 'draw: a cat', tools: [{ type: 'image_generation' }] }));
    const call = drawn.output[0];
    expect(call?.type === 'image_generation_call' && call.result).toBe(TINY_PNG_BASE64);
    const png = Buffer.from(TINY_PNG_BASE64, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');

    const seen = await kit.run({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${TINY_PNG_BASE64}` },
          ],
        },
      ],
    });
    expect(text(seen)).toBe(`I received 1 image: image/png ${png.length} bytes sha256:${createHash('sha256').update(png).digest('hex')}`);
  });

  it('validation still refuses an input image without its detail', async () => {
    const res = await kit.post('/v1/responses', {
      model: 'gpt-5',
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AA==' }] }],
    });
    expect(res.status).toBe(400);
  });
});
