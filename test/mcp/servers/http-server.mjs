// An HTTP MCP server for the tests, on node:http. Prints "listening <port>" on stdout.
//   /mcp        Streamable HTTP (the SDK's web-standard transport, one per session)
//   /sse        the older HTTP+SSE protocol (GET opens the event stream, whose first event
//               names the POST endpoint /messages?sessionId=…); a POST to /sse is refused,
//               as such servers do, which is what makes a client fall back
// Flags: --token T  requires "Authorization: Bearer T" on every request (else 401).
//        --oauth    is also its own OAuth authorization server (oauth.mjs) and requires a token it issued.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { createTestServer } from './tools.mjs';
import { createAuthServer } from './oauth.mjs';

const args = process.argv.slice(2);
const token = args.includes('--token') ? args[args.indexOf('--token') + 1] : undefined;
const oauth = args.includes('--oauth') ? createAuthServer() : undefined;

const streamable = new Map(); // session id → transport
const legacy = new Map(); // session id → LegacySseTransport

/** The server side of the 2024-11-05 HTTP+SSE transport, small enough to write for a test. */
class LegacySseTransport {
  constructor(res) {
    this.res = res;
    this.sessionId = randomUUID();
  }
  async start() {
    this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    this.res.write(`event: endpoint\ndata: /messages?sessionId=${this.sessionId}\n\n`);
    this.res.on('close', () => this.onclose?.());
  }
  async send(message) {
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }
  async close() {
    this.res.end();
  }
  receive(message) {
    this.onmessage?.(message);
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function toWebRequest(req, body) {
  const abort = new AbortController();
  req.socket.once('close', () => abort.abort());
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const init = { method: req.method, headers, signal: abort.signal };
  if (req.method !== 'GET' && req.method !== 'HEAD') init.body = body;
  return new Request(`http://${req.headers.host}${req.url}`, init);
}

async function sendWebResponse(res, response) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return res.end();
  Readable.fromWeb(response.body)
    .on('error', () => res.end())
    .pipe(res);
}

async function handleStreamable(req, res) {
  const body = await readBody(req);
  const sessionId = req.headers['mcp-session-id'];
  let transport = typeof sessionId === 'string' ? streamable.get(sessionId) : undefined;
  if (!transport) {
    if (typeof sessionId === 'string') {
      res.writeHead(404).end('unknown session');
      return;
    }
    transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => streamable.set(id, transport),
    });
    await createTestServer({ name: 'http' }).connect(transport);
  }
  await sendWebResponse(res, await transport.handleRequest(await toWebRequest(req, body)));
}

async function handleLegacy(req, res, url) {
  if (req.method === 'GET' && url.pathname === '/sse') {
    const transport = new LegacySseTransport(res);
    legacy.set(transport.sessionId, transport);
    await createTestServer({ name: 'legacy' }).connect(transport);
    return;
  }
  if (req.method === 'POST' && url.pathname === '/messages') {
    const transport = legacy.get(url.searchParams.get('sessionId'));
    if (!transport) return res.writeHead(404).end('unknown session');
    const message = JSON.parse((await readBody(req)).toString('utf8'));
    res.writeHead(202).end('Accepted');
    transport.receive(message);
    return;
  }
  res.writeHead(405).end('method not allowed');
}

async function route(req, res) {
  const url = new URL(req.url, 'http://localhost');
  const base = `http://${req.headers.host}`;
  if (await oauth.handle(req, res, url, base)) return;
  if (!oauth.authorized(req)) return oauth.challenge(res, base);
  await (url.pathname === '/mcp' ? handleStreamable(req, res) : handleLegacy(req, res, url));
}

const server = createServer((req, res) => {
  if (oauth) {
    route(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
    return;
  }
  if (token && req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401, { 'content-type': 'text/plain' }).end('missing or wrong token');
    return;
  }
  const url = new URL(req.url, 'http://localhost');
  const handler = url.pathname === '/mcp' ? handleStreamable(req, res) : handleLegacy(req, res, url);
  handler.catch((err) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(err));
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
