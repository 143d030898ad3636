// Remote MCP: what the API is offered, how the server's items are reported, the config → server
// resolution (${VAR} headers, labels), and an approval request answered as an approval response.
import { describe, expect, it } from 'vitest';
import { resolveRemoteServers, serverLabel } from '../mcp/remote.ts';
import type { RemoteServerSpec } from '../mcp/spec.ts';
import type { ToolCallItem } from '../../wire/items.ts';
import { outputForCall } from '../wire-output.ts';
import { createRemoteMcpTool, remoteDefinition, remoteMcpProgress } from './remote-mcp.ts';

const spec = (name: string, url: string, headers: Record<string, string> = {}): RemoteServerSpec => ({
  name,
  file: '/u/mcp.json',
  scope: 'user',
  transport: 'remote',
  url,
  headers,
  requireApproval: 'always',
});

describe('remote MCP', () => {
  it('expands ${VAR} in url and headers; a missing variable or a taken label leaves the server out, in one line', () => {
    const r = resolveRemoteServers(
      [
        spec('my docs', 'https://${HOST}/mcp', { Authorization: 'Bearer ${TOKEN}' }),
        spec('gh', 'https://gh.example/mcp', { Authorization: 'Bearer ${MISSING}' }),
        spec('my_docs', 'https://other.example/mcp'),
      ],
      { HOST: 'docs.example', TOKEN: 'tok-1' },
    );
    expect(r.servers).toEqual([
      { name: 'my docs', label: 'my_docs', url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer tok-1' }, requireApproval: 'always' },
    ]);
    expect(r.problems).toEqual([
      'mcp: remote server "gh" is not offered: ${MISSING} is not set (in /u/mcp.json)',
      'mcp: remote server "my_docs" is not offered: its label "my_docs" is taken by another remote server (rename one)',
    ]);
    expect(serverLabel('a.b/c')).toBe('a_b_c');
  });

  it('is offered as {type: "mcp"} with headers only when there are some', () => {
    expect(remoteDefinition({ name: 'd', label: 'd', url: 'https://d.example', headers: {}, requireApproval: 'never', allowedTools: ['x'] })).toEqual({
      type: 'mcp',
      server_label: 'd',
      server_url: 'https://d.example',
      require_approval: 'never',
      allowed_tools: ['x'],
    });
  });

  it('reports tool lists and calls (a failed status without an error text still fails)', () => {
    expect(remoteMcpProgress({ type: 'mcp_list_tools', id: 'l', server_label: 'd', tools: [{ name: 'a' }], error: null })).toEqual({
      type: 'hosted_mcp_tools',
      id: 'l',
      server: 'd',
      tools: ['a'],
    });
    expect(remoteMcpProgress({ type: 'mcp_call', id: 'm', server_label: 'd', name: 'a', arguments: '{}', output: 'héllo', status: 'completed' })).toEqual({
      type: 'hosted_mcp_call',
      id: 'm',
      server: 'd',
      tool: 'a',
      arguments: '{}',
      ok: true,
      outputBytes: 6,
    });
    expect(remoteMcpProgress({ type: 'mcp_call', id: 'n', server_label: 'd', name: 'a', arguments: '{}', status: 'failed' })).toMatchObject({
      ok: false,
      error: 'the call failed',
    });
  });

  it('answers an approval request with the decision (a denial carries its reason), and reports nothing itself', async () => {
    const tool = createRemoteMcpTool([]);
    const request: ToolCallItem = { type: 'mcp_approval_request', call_id: 'r1', server_label: 'd', name: 'search', arguments: '{"q": "a"}' };
    const parsed = tool.parse(request);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.call.title).toBe('d.search {"q":"a"}');
    const events: unknown[] = [];
    const result = await tool.run(parsed.call, {
      cwd: '/',
      workspaceRoot: '/',
      signal: new AbortController().signal,
      progress: (e) => events.push(e),
      retry: false,
      approve: () => Promise.resolve({ approve: false, decidedBy: 'policy', reason: 'one-shot' }),
    });
    expect(outputForCall(request, result.reply)).toEqual({ type: 'mcp_approval_response', approval_request_id: 'r1', approve: false, reason: 'one-shot' });
    // The question channel reports the question and the decision (approval_requested / approval_decided).
    expect(events).toEqual([]);
    expect(tool.asksPerson).toBe(true);
  });
});
