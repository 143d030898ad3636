// The completed response as the engine sees it: hosted items apart, approval requests as calls
// (their id as call_id), url citations of the text in order.
import { describe, expect, it } from 'vitest';
import { toCompleted } from './client.ts';

describe('toCompleted with hosted tools', () => {
  it('separates hosted items, turns approval requests into calls and collects citations', () => {
    const r = toCompleted({
      id: 'resp_1',
      output: [
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
        { type: 'mcp_list_tools', id: 'l_1', server_label: 'docs', tools: [{ name: 'search', input_schema: {} }] },
        { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'docs', name: 'search', arguments: '{}' },
        { type: 'image_generation_call', id: 'ig_1', status: 'completed', result: 'AAAA' },
        {
          type: 'message',
          content: [
            {
              type: 'output_text',
              text: 'See A.',
              annotations: [
                { type: 'url_citation', url: 'https://a.example', title: 'A', start_index: 4, end_index: 5 },
                { type: 'file_citation', file_id: 'f', filename: 'x', index: 0 },
              ],
            },
          ],
        },
      ],
    });
    expect(r.text).toBe('See A.');
    expect(r.toolCalls).toEqual([{ type: 'mcp_approval_request', id: 'mcpr_1', call_id: 'mcpr_1', server_label: 'docs', name: 'search', arguments: '{}' }]);
    expect(r.hosted?.map((h) => h.type)).toEqual(['web_search_call', 'mcp_list_tools', 'image_generation_call']);
    expect(r.citations).toEqual([{ url: 'https://a.example', title: 'A', start_index: 4, end_index: 5 }]);
  });

  it('a plain response has neither hosted items nor citations', () => {
    const r = toCompleted({ id: 'resp_2', output: [{ type: 'message', content: [{ type: 'output_text', text: 'hi', annotations: [] }] }] });
    expect(r.hosted).toBeUndefined();
    expect(r.citations).toBeUndefined();
  });
});
