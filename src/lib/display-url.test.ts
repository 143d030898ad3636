import { describe, expect, it } from 'vitest';
import { displayUrl, hasUserinfo, hideValues, redactUrls, urlSecretValues } from './display-url.ts';

describe('displayUrl', () => {
  it('drops user name and password and hides query values and the fragment', () => {
    expect(displayUrl('https://user:pw@host.example/mcp?api_key=SECRET')).toBe('https://host.example/mcp?api_key=***');
    expect(displayUrl('https://tok@host/mcp')).toBe('https://host/mcp');
    // The last @ before the path ends the userinfo, as URL parsers read it.
    expect(displayUrl('https://u:p@ss@host:8443/a/b?x=1&y=2#access_token=t')).toBe('https://host:8443/a/b?x=***&y=***#***');
    expect(displayUrl('http://host/p?bare-token&empty=&k=v')).toBe('http://host/p?***&empty=&k=***');
  });

  it('keeps the text as written: ${VAR} references, case, paths without a query, an @ in the query', () => {
    expect(displayUrl('https://${HOST}/MCP?key=${API_KEY}&v=3')).toBe('https://${HOST}/MCP?key=${API_KEY}&v=***');
    expect(displayUrl('https://Example.com/mcp')).toBe('https://Example.com/mcp');
    expect(displayUrl('https://host/mcp?email=a@b.c')).toBe('https://host/mcp?email=***');
    expect(displayUrl('not a url?k=s3cret')).toBe('not a url?k=***');
  });
});

describe('redactUrls', () => {
  it('shows every absolute URL in a line as displayUrl does, leaving the sentence around it', () => {
    expect(redactUrls('Request cannot be constructed from a URL that includes credentials: https://user:pw@h/mcp?api_key=S; retry.')).toBe(
      'Request cannot be constructed from a URL that includes credentials: https://h/mcp?api_key=***; retry.',
    );
    expect(redactUrls('proxy http://127.0.0.1:3128 could not be reached (see http://a/b?t=x).')).toBe(
      'proxy http://127.0.0.1:3128 could not be reached (see http://a/b?t=***).',
    );
    expect(redactUrls('no URL here')).toBe('no URL here');
  });
});

describe('hasUserinfo', () => {
  it('is true only for user:password@ (or user@) in the authority', () => {
    expect(hasUserinfo('https://user:pw@host/mcp')).toBe(true);
    expect(hasUserinfo(' https://${CREDS}@host/mcp')).toBe(true);
    expect(hasUserinfo('https://host/mcp?email=a@b')).toBe(false);
    expect(hasUserinfo('https://host/a@b')).toBe(false);
    expect(hasUserinfo('https://host/mcp')).toBe(false);
  });
});

describe('urlSecretValues / hideValues', () => {
  it('finds credentials, query values (raw and decoded) and the fragment, longest first; short values and references stay', () => {
    const values = urlSecretValues('https://alice:pa%24%24word@h/mcp?api_key=SECRET123&v=2&q=a%20bcdef&ref=${TOKEN}#fragment1');
    expect(values).toEqual(expect.arrayContaining(['pa%24%24word', 'pa$$word', 'SECRET123', 'a%20bcdef', 'a bcdef', 'fragment1']));
    expect(values).not.toContain('2');
    expect(values).not.toContain('alice');
    expect(values).not.toContain('${TOKEN}');
    expect(values.map((v) => v.length)).toEqual([...values.map((v) => v.length)].sort((a, b) => b - a));
    expect(hideValues('no route for /mcp?api_key=SECRET123&v=2', values)).toBe('no route for /mcp?api_key=***&v=2');
    expect(urlSecretValues('not a url')).toEqual([]);
  });
});
