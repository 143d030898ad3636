// One MCP server: start it (stdio child, or Streamable HTTP with a fallback to HTTP+SSE) within
// a start timeout, keep its tool list current (tools/list_changed), call its tools, close it.
// Never throws from start(): a server that cannot start ends in state 'failed' with a one-line
// reason, and the session goes on without it.
import type * as Sdk from '@modelcontextprotocol/client';
import type { CallToolResult, Client, Tool, Transport } from '@modelcontextprotocol/client';
import { hideValues, redactUrls, urlSecretValues } from '../../lib/display-url.ts';
import { resolveSpec } from './resolve.ts';
import type { ResolvedHttpServer, ResolvedStdioServer } from './resolve.ts';
import type { SendOptions } from './call.ts';
import type { McpServerSpec } from './spec.ts';
import { SupervisedStdioTransport } from './stdio-transport.ts';
import { StoredOAuthProvider } from './oauth-provider.ts';
import { oauthKey, readOAuthEntry } from './oauth-store.ts';
import { clipChars, durationText } from '../../lib/text.ts';

export type SdkModule = typeof Sdk;
export type ServerState = 'starting' | 'ready' | 'failed' | 'closed';
export type TransportKind = 'stdio' | 'http' | 'sse';

export interface ConnectionOptions {
  sdk: SdkModule;
  /** The environment stdio servers start from, already without agentx's secrets. */
  baseEnv: NodeJS.ProcessEnv;
  /** Also expands `${VAR}` in the config: the person's full environment, secrets included. */
  expandEnv: NodeJS.ProcessEnv;
  defaultCwd: string;
  wrapCommand?: (argv: string[], server: { name: string; cwd: string }) => string[];
  startTimeoutMs: number;
  killGraceMs?: number;
  clientVersion: string;
  /** Removes agentx's secrets from text that came from the server (its stderr in error lines). */
  redact?: (text: string) => string;
  /** Where `agentx mcp login` keeps sign-ins; a signed-in HTTP server gets its tokens from there. */
  oauthStorePath?: string;
  /** The fetch HTTP transports use (the front-end's proxy-aware one); default: Node's. */
  fetch?: typeof fetch;
  /** Called when the state or the tool list changed (start, failure, exit, list_changed). */
  onChange: () => void;
}

const MAX_REASON_CHARS = 300;

/**
 * Any error text as one short line: messages end up in one-line reports. They often quote the
 * server (its stderr, its JSON-RPC error messages), so control characters are made visible
 * (`\x1b`): whoever prints the line, no escape sequence in it can act on a terminal.
 */
export function oneLine(text: string): string {
  const flat = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return clipChars(flat, MAX_REASON_CHARS);
}

/**
 * Delivers a server's answers a turn of the event loop later than the messages read with them.
 * The SDK handles a notification in a microtask but an answer at once, and on an answer it
 * forgets the request's progress handler: the progress reports read in the same chunk as the
 * answer (a server that reports its last state and answers right away) were dropped as "unknown
 * token", and the person never saw the last state. Answers keep their order among themselves, and
 * the end of the connection is reported after them (a server that answers and exits has still
 * answered); a notification sent after its request's answer was never shown anyway.
 */
function answersAfterNotifications(transport: Transport): void {
  const deliver = transport.onmessage;
  const closed = transport.onclose;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    const isAnswer = 'id' in message && !('method' in message);
    if (isAnswer) setImmediate(() => deliver(message, extra));
    else deliver(message, extra);
  };
  if (closed !== undefined) transport.onclose = () => setImmediate(closed);
}

/** The HTTP status the SDK attaches to transport errors (SdkHttpError.data.status), if any. */
function httpStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null || !('data' in err)) return undefined;
  const { data } = err;
  return typeof data === 'object' && data !== null && 'status' in data && typeof data.status === 'number' ? data.status : undefined;
}

function messageOf(err: unknown): string {
  const message = oneLine(err instanceof Error ? err.message : String(err));
  const status = httpStatus(err);
  return status === undefined || message.includes(String(status)) ? message : `HTTP ${status}: ${message}`;
}

class StartTimeout extends Error {}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines[lines.length - 1] ?? '';
}

export class McpConnection {
  state: ServerState = 'starting';
  /** Why the server failed or stopped, one line. */
  error: string | undefined;
  tools: Tool[] = [];
  transportKind: TransportKind | undefined;
  private client: Client | undefined;
  private stdio: SupervisedStdioTransport | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  /** The HTTP server URL's query values and credentials, hidden from error lines (urlSecretValues). */
  private urlSecrets: string[] = [];

  constructor(
    readonly spec: McpServerSpec,
    private readonly opts: ConnectionOptions,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  /** The stdio server's pid (= its process group id), for diagnostics and tests. */
  get pid(): number | undefined {
    return this.stdio?.pid;
  }

  get startTimeoutMs(): number {
    return this.spec.startupTimeoutMs ?? this.opts.startTimeoutMs;
  }

  async start(): Promise<void> {
    const resolved = resolveSpec(this.spec, this.opts.expandEnv, this.opts.defaultCwd);
    if (!resolved.ok) return this.fail(resolved.reason);
    if (resolved.server.transport !== 'stdio') this.urlSecrets = urlSecretValues(resolved.server.url);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new StartTimeout()), this.startTimeoutMs);
    try {
      const server = resolved.server;
      if (server.transport === 'stdio') await this.connectStdioRetrying(server, deadline.signal);
      else await this.connectHttp(server, deadline.signal);
      await this.listTools(deadline.signal);
      if (this.state !== 'starting') return;
      this.state = 'ready';
      this.opts.onChange();
    } catch (err) {
      await this.closeClient();
      this.fail(this.startFailure(err, deadline.signal.aborted));
    } finally {
      clearTimeout(timer);
    }
  }

  private startFailure(err: unknown, timedOut: boolean): string {
    const exit = this.stdio?.exitInfo;
    const stderr = oneLine(lastLine(this.stdio?.stderrTail() ?? ''));
    if (exit && !timedOut) {
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
      return `${how} before it was ready${stderr ? `: ${stderr}` : ''}`;
    }
    if (timedOut) return `did not answer within ${durationText(this.startTimeoutMs)}${stderr ? ` (stderr: ${stderr})` : ''}`;
    return messageOf(err);
  }

  private fail(reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'failed';
    // fetch, the SDK and servers quote the request's URL or path (`…includes credentials: https://…`,
    // `no route for /mcp?api_key=…`): its query may hold a key.
    const shown = hideValues(redactUrls(reason), this.urlSecrets);
    this.error = oneLine(this.opts.redact ? this.opts.redact(shown) : shown);
    this.tools = [];
    this.opts.onChange();
  }

  private newClient(): Client {
    const client = new this.opts.sdk.Client({ name: 'agentx', version: this.opts.clientVersion }, { capabilities: {} });
    // Errors reported out of band (a stray stdout line, a failed notification) are not fatal.
    client.onerror = () => undefined;
    client.setNotificationHandler('notifications/tools/list_changed', () => this.refreshTools());
    return client;
  }

  private async connectStdio(server: ResolvedStdioServer, signal: AbortSignal): Promise<void> {
    this.transportKind = 'stdio';
    const argv = [server.command, ...server.args];
    const wrapped = this.opts.wrapCommand ? this.opts.wrapCommand(argv, { name: this.name, cwd: server.cwd }) : argv;
    const transport = new SupervisedStdioTransport({
      argv: wrapped,
      cwd: server.cwd,
      env: { ...this.opts.baseEnv, ...server.env },
      graceMs: this.opts.killGraceMs,
      parseMessage: (line) => this.opts.sdk.deserializeMessage(line),
    });
    this.stdio = transport;
    await this.connectWith(this.newClient(), transport, signal);
  }

  /**
   * A stdio server whose sandbox failed while being set up (bwrap's own "bwrap: …" line, exit 1,
   * before the server ran: a state file renamed between bwrap's bind and its read-only remount,
   * src/tools/supervisor.ts) is started again, twice at most. Starting a server is not a tool call:
   * nothing the model asked for runs twice.
   */
  private async connectStdioRetrying(server: ResolvedStdioServer, signal: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.connectStdio(server, signal);
        return;
      } catch (err) {
        if (attempt >= 3 || signal.aborted) throw err;
        // Closing waits for the process, so its exit status and last words are known after it.
        await this.closeClient();
        const exit = this.stdio?.exitInfo;
        const setupFailed = exit?.code === 1 && /^bwrap: /m.test(this.stdio?.stderrTail() ?? '');
        if (!setupFailed) throw err;
        await new Promise((r) => setTimeout(r, 20 * attempt));
      }
    }
  }

  private async connectHttp(server: ResolvedHttpServer, signal: AbortSignal): Promise<void> {
    const { sdk } = this.opts;
    const url = new URL(server.url);
    const baseFetch = this.opts.fetch ?? fetch;
    // The configured headers (often a token) go to the server's own origin only, not to an
    // OAuth authorization server the SDK talks to through the same fetch.
    const fetchWithHeaders: typeof fetch = (input, init) => {
      const target = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
      if (target.origin !== url.origin) return baseFetch(input, init);
      const headers = new Headers(init?.headers);
      for (const [k, v] of Object.entries(server.headers)) headers.set(k, v);
      return baseFetch(input, { ...init, headers });
    };
    // Signed in with `agentx mcp login`: the SDK adds the token and refreshes it on a 401.
    const store = this.opts.oauthStorePath;
    const key = oauthKey(this.name, server.url);
    const authProvider =
      store !== undefined && readOAuthEntry(store, key)?.tokens !== undefined
        ? new StoredOAuthProvider({ storePath: store, key, server: this.name })
        : undefined;
    const options = { fetch: fetchWithHeaders, ...(authProvider ? { authProvider } : {}) };
    if (server.transport === 'sse') {
      this.transportKind = 'sse';
      return this.connectWith(this.newClient(), new sdk.SSEClientTransport(url, options), signal);
    }
    this.transportKind = 'http';
    try {
      await this.connectWith(this.newClient(), new sdk.StreamableHTTPClientTransport(url, options), signal);
      return;
    } catch (err) {
      if (signal.aborted) throw err;
      await this.closeClient();
      // Servers from before Streamable HTTP answer its POST with an error: try their protocol.
      this.transportKind = 'sse';
      try {
        await this.connectWith(this.newClient(), new sdk.SSEClientTransport(url, options), signal);
      } catch (sseErr) {
        if (signal.aborted) throw sseErr;
        this.transportKind = 'http';
        const refused = httpStatus(err) === 401 || httpStatus(sseErr) === 401;
        const hint = refused && authProvider === undefined ? ` (if it needs sign-in: agentx mcp login ${this.name})` : '';
        throw new Error(`Streamable HTTP: ${messageOf(err)}; HTTP+SSE: ${messageOf(sseErr)}${hint}`);
      }
    }
  }

  private async connectWith(client: Client, transport: Transport, signal: AbortSignal): Promise<void> {
    this.client = client;
    client.onclose = () => this.onClosed(client);
    // The SDK bounds initialize by its own timeout; the signal ends it at our deadline.
    const aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(new StartTimeout());
      signal.addEventListener('abort', () => reject(new StartTimeout()), { once: true });
    });
    await Promise.race([client.connect(transport, { signal, timeout: this.startTimeoutMs }), aborted]);
    answersAfterNotifications(transport);
  }

  /** The connection ended without close(): the server exited or the HTTP session broke. */
  private onClosed(client: Client): void {
    if (client !== this.client || this.state !== 'ready') return;
    const exit = this.stdio?.exitInfo;
    const stderr = oneLine(lastLine(this.stdio?.stderrTail() ?? ''));
    const how = exit ? (exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`) : 'closed the connection';
    this.fail(`${how}${stderr ? `: ${stderr}` : ''}`);
  }

  private async listTools(signal?: AbortSignal): Promise<void> {
    const client = this.client;
    if (!client) return;
    // listTools on a server without the tools capability logs through console: ask only when offered.
    if (!client.getServerCapabilities()?.tools) {
      this.tools = [];
      return;
    }
    const result = await client.listTools(undefined, { signal, timeout: this.startTimeoutMs, cacheMode: 'refresh' });
    if (client === this.client) this.tools = result.tools;
  }

  /** tools/list_changed: fetch the list again; notifications during a fetch cause one more. */
  refreshTools(): void {
    if (this.state !== 'ready') return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        try {
          await this.listTools();
        } catch {
          // Keep the previous list: a failed refresh does not make the tools unusable.
        }
      } while (this.refreshAgain && this.state === 'ready');
      this.refreshing = undefined;
      if (this.state === 'ready') this.opts.onChange();
    })();
  }

  /** The current refresh, if any, for callers that need the settled list. */
  whenRefreshed(): Promise<void> {
    return this.refreshing ?? Promise.resolve();
  }

  /** Throws when the server is not ready or the request fails (timeout, abort, server gone). */
  async callTool(tool: string, args: Record<string, unknown>, options: SendOptions): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.state !== 'ready') throw new Error(`server is ${this.state}${this.error ? ` (${this.error})` : ''}`);
    // `onprogress` makes the SDK send a progressToken; each report then restarts the tool
    // timeout, so a call that keeps saying it is alive is not cut off. The total cap is
    // call.ts's own timer (why: runMcpCall).
    return client.callTool(
      { name: tool, arguments: args },
      { signal: options.signal, timeout: options.timeoutMs, onprogress: options.onProgress, resetTimeoutOnProgress: true },
    );
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    try {
      await client?.close();
    } catch {
      // Closing is best effort; the stdio transport kills the process group regardless.
    }
    await this.stdio?.close();
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.tools = [];
    await this.closeClient();
  }
}
