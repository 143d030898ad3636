// All MCP servers of a session: started in parallel (each within its start timeout), their
// tools offered to the model under stable `mcp__server__tool` names, calls routed by name, and
// everything stopped by close(). The MCP SDK is imported here, lazily, on start: a session
// without servers never loads it.
import { MCP_RETRY_NOTICE, displayLine, runMcpCall } from './call.ts';
import type { McpCallOutcome, McpCallRecord } from './call.ts';
import { McpConnection } from './connection.ts';
import type { SdkModule, ServerState, TransportKind } from './connection.ts';
import { assignToolNames } from './naming.ts';
import type { ToolKey } from './naming.ts';
import { DEFAULT_MAX_DESCRIPTION_CHARS, adaptInputSchema, trimDescription } from './schema.ts';
import type { JsonObject } from './schema.ts';
import type { McpServerSpec } from './spec.ts';
import { redactSecrets, SECRET_ENV_NAMES } from '../../sandbox/env.ts';
import { redactionSecrets } from './manager-secrets.ts';
import { defaultImageLimits } from './images.ts';
import { oauthStorePath } from './oauth-store.ts';
import type { ImageLimits } from './images.ts';
import type { ProgressReport } from './progress.ts';

import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CALL_TOTAL_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS } from './spec.ts';

export { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CALL_TOTAL_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS };
export const DEFAULT_MCP_OUTPUT_BYTES = 64 * 1024;

/** Variables that hold agentx's own credentials: never passed to a server unless its config names them. */
const SECRET_VARIABLES: readonly string[] = SECRET_ENV_NAMES;

export interface McpManagerOptions {
  specs: McpServerSpec[];
  /** agentx's environment: source of `${VAR}` and the base of stdio servers' environments. */
  env: NodeJS.ProcessEnv;
  /** Values never passed to servers through inherited variables (the API key in use). */
  secrets?: string[];
  /** Where stdio servers run when their config names no cwd: the session's directory. */
  projectDir: string;
  /** Rewrites a stdio server's argv, e.g. to run it inside the sandbox (bwrap … -- argv). */
  wrapCommand?: (argv: string[], server: { name: string; cwd: string }) => string[];
  startTimeoutMs?: number;
  callTimeoutMs?: number;
  callTotalTimeoutMs?: number;
  maxOutputBytes?: number;
  maxDescriptionChars?: number;
  /** Where images from tools are kept and their size limit (default: the private state store, 5 MB); false: notes only. */
  images?: ImageLimits | false;
  killGraceMs?: number;
  clientVersion?: string;
  onEvent?: (event: McpEvent) => void;
  /** Where sign-ins are kept (default: the private state store); false: none are used. */
  oauthStorePath?: string | false;
  /** The fetch for HTTP servers (the front-end passes one that honours proxies and AGENTX_CA_FILE). */
  fetch?: typeof fetch;
  /** For tests and benchmarks; the default is the dynamic import of the SDK. */
  loadSdk?: () => Promise<SdkModule>;
}

export type McpEvent =
  | { type: 'server_ready'; server: string; tools: number }
  | { type: 'server_failed'; server: string; reason: string }
  | { type: 'tools_changed'; server: string; tools: number };

/** A function tool in the shape of the Responses API's `FunctionTool`. */
export interface McpFunctionTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonObject;
  strict: boolean;
}

export interface McpServerStatus {
  name: string;
  state: ServerState;
  transport: TransportKind | undefined;
  tools: number;
  error: string | undefined;
  file: string;
  scope: McpServerSpec['scope'];
  pid: number | undefined;
}

export function serverEnvironment(env: NodeJS.ProcessEnv, secrets: readonly string[]): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_VARIABLES.includes(name) || secrets.includes(value)) continue;
    out[name] = value;
  }
  return out;
}

export class McpManager {
  private readonly connections: McpConnection[];
  private names = new Map<string, ToolKey>();
  private definitions: McpFunctionTool[] = [];
  private readonly lastState = new Map<McpConnection, ServerState>();
  private readonly redact: (text: string) => string;

  private constructor(
    private readonly opts: McpManagerOptions,
    sdk: SdkModule,
  ) {
    const baseEnv = serverEnvironment(opts.env, opts.secrets ?? []);
    const secrets = redactionSecrets(opts.env, opts.secrets ?? []);
    this.redact = (text) => redactSecrets(text, secrets);
    this.connections = opts.specs.map((spec) => {
      const connection: McpConnection = new McpConnection(spec, {
        sdk,
        baseEnv,
        expandEnv: opts.env,
        defaultCwd: opts.projectDir,
        wrapCommand: opts.wrapCommand,
        startTimeoutMs: opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
        killGraceMs: opts.killGraceMs,
        clientVersion: opts.clientVersion ?? '0.0.0',
        redact: this.redact,
        fetch: opts.fetch,
        oauthStorePath: opts.oauthStorePath === false ? undefined : (opts.oauthStorePath ?? oauthStorePath(opts.env)),
        onChange: () => this.changed(connection),
      });
      return connection;
    });
    this.ready = Promise.all(this.connections.map((c) => c.start())).then(() => undefined);
  }

  /** Resolves when every server is ready or has failed (each within its start timeout); never rejects. */
  readonly ready: Promise<void>;

  /**
   * Loads the SDK and starts every server in parallel, without waiting for them: tools appear
   * (onEvent 'server_ready') as servers come up. For a prompt that should not wait.
   */
  static async launch(opts: McpManagerOptions): Promise<McpManager> {
    const sdk = await (opts.loadSdk ?? (() => import('@modelcontextprotocol/client')))();
    return new McpManager(opts, sdk);
  }

  /** launch() and wait until every server is ready or has failed. */
  static async start(opts: McpManagerOptions): Promise<McpManager> {
    const manager = await McpManager.launch(opts);
    await manager.ready;
    return manager;
  }

  servers(): McpServerStatus[] {
    return this.connections.map((c) => ({
      name: c.name,
      state: c.state,
      transport: c.transportKind,
      tools: c.tools.length,
      error: c.error,
      file: c.spec.file,
      scope: c.spec.scope,
      pid: c.pid,
    }));
  }

  /** One line per server that is not ready, for the start of a session. */
  startupReport(): string[] {
    return this.connections.filter((c) => c.state === 'failed').map((c) => `mcp: server ${c.name} failed to start: ${c.error ?? 'unknown reason'}`);
  }

  /** The function tools to offer the model now (they change when a server's list changes). */
  toolDefinitions(): McpFunctionTool[] {
    return this.definitions;
  }

  /** Which server and tool a function name stands for, if it is one of ours. */
  resolveName(name: string): ToolKey | undefined {
    return this.names.get(name);
  }

  /** What to journal before sending the call; undefined when the name is not an MCP tool. */
  describeCall(name: string, argsJson: string): McpCallRecord | undefined {
    const key = this.names.get(name);
    return key ? { kind: 'mcp', server: key.server, tool: key.tool, arguments: argsJson } : undefined;
  }

  displayLine(record: McpCallRecord): string {
    return displayLine(record);
  }

  readonly retryNotice = MCP_RETRY_NOTICE;

  /**
   * Runs a journaled call. Takes the record, not the function name, so a call journaled before
   * a restart goes to the same server and tool even if names were reassigned since.
   */
  async call(
    record: McpCallRecord,
    opts: { signal?: AbortSignal; timeoutMs?: number; totalTimeoutMs?: number; onProgress?: (report: ProgressReport) => void } = {},
  ): Promise<McpCallOutcome> {
    const connection = this.connections.find((c) => c.name === record.server);
    let unavailable: string | undefined;
    if (!connection) unavailable = `server ${record.server} is not configured`;
    else if (connection.state !== 'ready') unavailable = `server ${record.server} is ${connection.state}${connection.error ? ` (${connection.error})` : ''}`;
    else if (!connection.tools.some((t) => t.name === record.tool)) unavailable = `server ${record.server} has no tool ${record.tool} (any more)`;
    // A progress message is server text like the output: redacted the same way before anyone sees it.
    const onProgress = opts.onProgress;
    const outcome = await runMcpCall(record.arguments, {
      server: record.server,
      tool: record.tool,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs ?? connection?.spec.toolTimeoutMs ?? this.opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      totalTimeoutMs: opts.totalTimeoutMs ?? connection?.spec.toolTotalTimeoutMs ?? this.opts.callTotalTimeoutMs ?? DEFAULT_CALL_TOTAL_TIMEOUT_MS,
      onProgress: onProgress && ((report) => onProgress(typeof report.message === 'string' ? { ...report, message: this.redact(report.message) } : report)),
      maxOutputBytes: this.opts.maxOutputBytes ?? DEFAULT_MCP_OUTPUT_BYTES,
      imageLimits: this.opts.images === false ? undefined : (this.opts.images ?? defaultImageLimits(this.opts.env)),
      unavailable,
      serverError: () => connection?.error,
      send: (args, o) => {
        if (!connection) return Promise.reject(new Error('server is not configured'));
        return connection.callTool(record.tool, args, o);
      },
    });
    // A server that found the key (in its environment, a file, an argument) cannot pass it on
    // to the model, the journal or the screen.
    return { ...outcome, output: this.redact(outcome.output) };
  }

  /** For tests and `/mcp`: resolves once every running tool-list refresh has settled. */
  async settled(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.whenRefreshed()));
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
    this.rebuild();
  }

  /** A connection reports a change: a new state, or (while ready) a refreshed tool list. */
  private changed(c: McpConnection): void {
    this.rebuild();
    const before = this.lastState.get(c);
    this.lastState.set(c, c.state);
    const tools = c.tools.length;
    if (c.state === 'failed' && before !== 'failed') this.emit({ type: 'server_failed', server: c.name, reason: c.error ?? 'unknown reason' });
    else if (c.state === 'ready' && before !== 'ready') this.emit({ type: 'server_ready', server: c.name, tools });
    else if (c.state === 'ready') this.emit({ type: 'tools_changed', server: c.name, tools });
  }

  private emit(event: McpEvent): void {
    try {
      this.opts.onEvent?.(event);
    } catch {
      // A display failure must not break the connection that reported the change.
    }
  }

  private rebuild(): void {
    const ready = this.connections.filter((c) => c.state === 'ready');
    const byKey = new Map<string, { description: string | undefined; inputSchema: unknown }>();
    const keys: ToolKey[] = [];
    for (const c of ready) {
      for (const t of c.tools) {
        keys.push({ server: c.name, tool: t.name });
        byKey.set(`${c.name}\u0000${t.name}`, { description: t.description, inputSchema: t.inputSchema });
      }
    }
    this.names = assignToolNames(keys);
    const maxChars = this.opts.maxDescriptionChars ?? DEFAULT_MAX_DESCRIPTION_CHARS;
    this.definitions = [...this.names].map(([name, key]) => {
      const tool = byKey.get(`${key.server}\u0000${key.tool}`);
      const { parameters, strict } = adaptInputSchema(tool?.inputSchema);
      const description = this.redact(trimDescription(tool?.description ?? `Tool ${key.tool} of the MCP server ${key.server}.`, maxChars));
      return { type: 'function', name, description, parameters, strict };
    });
  }
}
