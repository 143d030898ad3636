// A small OAuth 2.1 authorization server for the tests, in front of the HTTP MCP server
// (http-server.mjs --oauth): protected-resource and authorization-server metadata, dynamic
// client registration, /authorize answering at once with a redirect (the "person" always
// consents), /token for authorization_code (PKCE S256 checked) and refresh_token (rotated).
// POST /__expire makes every access token invalid, so a test can see the client refresh.
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

function mark(what) {
  const dir = process.env.MCP_TEST_MARK_DIR;
  if (dir) appendFileSync(join(dir, 'marks'), `${what}\n`);
}

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function createAuthServer() {
  const clients = new Map(); // client_id → redirect_uris
  const codes = new Map(); // code → { challenge, redirectUri, clientId }
  const access = new Set();
  const refresh = new Map(); // refresh token → client_id

  function issue(clientId) {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    access.add(accessToken);
    refresh.set(refreshToken, clientId);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, refresh_token: refreshToken };
  }

  return {
    authorized(req) {
      const auth = req.headers.authorization ?? '';
      return auth.startsWith('Bearer ') && access.has(auth.slice(7));
    },
    challenge(res, base) {
      res
        .writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`, 'content-type': 'text/plain' })
        .end('sign in first');
    },
    /** True when the request was one of the authorization server's. */
    async handle(req, res, url, base) {
      const path = url.pathname;
      if (path.startsWith('/.well-known/oauth-protected-resource')) {
        json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
        return true;
      }
      if (path === '/.well-known/oauth-authorization-server' || path === '/.well-known/openid-configuration') {
        json(res, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
        });
        return true;
      }
      if (path === '/register' && req.method === 'POST') {
        const meta = JSON.parse(await readBody(req));
        const clientId = `client-${randomUUID()}`;
        clients.set(clientId, meta.redirect_uris ?? []);
        mark(`registered ${meta.client_name} ${meta.token_endpoint_auth_method}`);
        json(res, 201, { ...meta, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) });
        return true;
      }
      if (path === '/authorize') {
        const p = url.searchParams;
        const clientId = p.get('client_id');
        const redirectUri = p.get('redirect_uri');
        if (
          !clients.get(clientId)?.includes(redirectUri) ||
          p.get('response_type') !== 'code' ||
          p.get('code_challenge_method') !== 'S256' ||
          !p.get('code_challenge')
        ) {
          res.writeHead(400).end('bad authorization request');
          return true;
        }
        const code = `code-${randomUUID()}`;
        codes.set(code, { challenge: p.get('code_challenge'), redirectUri, clientId });
        mark(`authorize resource=${p.get('resource')}`);
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        if (p.get('state') !== null) back.searchParams.set('state', p.get('state'));
        res.writeHead(302, { location: back.href }).end();
        return true;
      }
      if (path === '/token' && req.method === 'POST') {
        const p = new URLSearchParams(await readBody(req));
        if (p.get('grant_type') === 'authorization_code') {
          const grant = codes.get(p.get('code'));
          codes.delete(p.get('code'));
          const verifier = p.get('code_verifier') ?? '';
          const ok =
            grant &&
            grant.redirectUri === p.get('redirect_uri') &&
            grant.clientId === p.get('client_id') &&
            createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
          if (!ok) return (json(res, 400, { error: 'invalid_grant' }), true);
          mark('token authorization_code');
          json(res, 200, issue(grant.clientId));
          return true;
        }
        if (p.get('grant_type') === 'refresh_token') {
          const clientId = refresh.get(p.get('refresh_token'));
          refresh.delete(p.get('refresh_token'));
          if (clientId === undefined) return (json(res, 400, { error: 'invalid_grant' }), true);
          mark('token refresh_token');
          json(res, 200, issue(clientId));
          return true;
        }
        json(res, 400, { error: 'unsupported_grant_type' });
        return true;
      }
      if (path === '/__expire' && req.method === 'POST') {
        access.clear();
        res.writeHead(204).end();
        return true;
      }
      return false;
    },
  };
}
