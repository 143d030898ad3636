// Remote MCP header values: found in a request, replaced in what is logged, redacted anywhere.
import { describe, expect, it } from 'vitest';
import { redactDeep, requestSecrets, withoutToolSecrets } from './hosted-secrets.ts';
import type { ModelRequest } from './types.ts';

const request: ModelRequest = {
  model: 'm',
  instructions: 'i',
  input: [],
  store: true,
  stream: true,
  tools: [
    { type: 'shell', environment: { type: 'local' } },
    {
      type: 'mcp',
      server_label: 'gh',
      server_url: 'https://gh.example/mcp',
      headers: { Authorization: 'Bearer ghp_abcdef123456', 'X-Short': 'abc' },
      require_approval: 'always',
    },
  ],
};

describe('remote MCP header secrets', () => {
  it('are each header value and the credential after its scheme, longest first; short values are not hunted', () => {
    expect(requestSecrets(request)).toEqual(['Bearer ghp_abcdef123456', 'ghp_abcdef123456']);
    expect(requestSecrets({ tools: [{ type: 'web_search' }] })).toEqual([]);
  });

  it('are replaced in the logged request (names kept) without touching the request itself', () => {
    const logged = withoutToolSecrets(request);
    expect(logged.tools[1]).toMatchObject({ headers: { Authorization: '[REDACTED]', 'X-Short': '[REDACTED]' } });
    expect(JSON.stringify(logged)).not.toContain('ghp_');
    expect(request.tools[1]).toMatchObject({ headers: { Authorization: 'Bearer ghp_abcdef123456' } });
  });

  it('are redacted in every string of an echoed value, keys included', () => {
    const echoed = {
      type: 'response.completed',
      response: { tools: [{ headers: { Authorization: 'Bearer ghp_abcdef123456' } }], error: 'bad token ghp_abcdef123456', ['ghp_abcdef123456']: 1 },
    };
    expect(JSON.stringify(redactDeep(echoed, requestSecrets(request)))).not.toContain('ghp_');
  });
});
