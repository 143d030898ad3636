// Flag parsing for agentx. Hand-written instead of a library: the grammar is small and every
// millisecond of startup counts. Pure: takes argv, returns options or throws UsageError.
import { parseSandboxValue, SANDBOX_VALUES_TEXT } from '../sandbox/policy.ts';
import { UsageError } from './errors.ts';

export type ShellToolKind = 'builtin' | 'function';
export type PatchToolKind = 'builtin' | 'function' | 'custom' | 'off';

export interface CliOptions {
  command: 'run' | 'setup' | 'help' | 'version' | 'mcp-list';
  message: string[];          // words of a one-shot message ('-' means read stdin)
  cwd?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;            // only accepted by `agentx setup --api-key`
  quiet: boolean;
  json: boolean;
  confirm: boolean;
  debug: boolean;
  color: boolean;
  /** `--raw`: answers as plain text, no Markdown rendering. */
  raw: boolean;
  showUsage: boolean;
  showTimers: boolean;
  showReasoning: boolean;
  showShellCalls: boolean;
  shellTool?: ShellToolKind;
  webSearch?: boolean;        // --web-search on|off (hosted tool)
  imageGeneration?: boolean;  // --image-generation on|off (hosted tool)
  patchTool?: PatchToolKind;
  sandbox?: string;           // --sandbox MODE, checked by parseSandboxValue
  readStdin: boolean;         // `agentx -`
}

interface FlagSpec {
  long: string;
  short?: string;
  value?: string;             // name of the value when the flag takes one
  help: string;
  apply(o: CliOptions, v: string): void;
}

const FLAGS: FlagSpec[] = [
  { long: 'help', short: 'h', help: 'show this help', apply: (o) => { o.command = 'help'; } },
  { long: 'version', short: 'v', help: 'print the version', apply: (o) => { o.command = 'version'; } },
  { long: 'cwd', short: 'C', value: 'DIR', help: 'run in DIR instead of the current directory', apply: (o, v) => { o.cwd = v; } },
  { long: 'model', short: 'm', value: 'NAME', help: 'model to use (default from config)', apply: (o, v) => { o.model = v; } },
  { long: 'base-url', value: 'URL', help: 'Responses API base URL', apply: (o, v) => { o.baseUrl = checkUrl(v); } },
  { long: 'api-key', value: 'KEY', help: 'with `setup`: the API key to store', apply: (o, v) => { o.apiKey = v; } },
  { long: 'quiet', short: 'q', help: 'print the answer only', apply: (o) => { o.quiet = true; } },
  { long: 'json', help: 'JSONL events on stdout', apply: (o) => { o.json = true; } },
  { long: 'confirm', help: 'ask before each model shell command', apply: (o) => { o.confirm = true; } },
  { long: 'debug', help: 'log requests/responses to ~/.agentx-logs (secrets redacted)', apply: (o) => { o.debug = true; } },
  { long: 'no-color', help: 'no colours', apply: (o) => { o.color = false; } },
  { long: 'raw', help: 'answers as plain text, not rendered Markdown (as with NO_COLOR)', apply: (o) => { o.raw = true; } },
  { long: 'no-usage', help: 'hide the usage line', apply: (o) => { o.showUsage = false; } },
  { long: 'no-timers', help: 'hide durations', apply: (o) => { o.showTimers = false; } },
  { long: 'no-reasoning', help: 'hide reasoning summaries', apply: (o) => { o.showReasoning = false; } },
  { long: 'no-shell-calls', help: 'hide shell call display (they still run)', apply: (o) => { o.showShellCalls = false; } },
  { long: 'shell-tool', value: 'builtin|function', help: 'how the shell tool is offered to the model', apply: (o, v) => { o.shellTool = checkShellTool(v, '--shell-tool'); } },
  { long: 'patch-tool', value: 'builtin|function|custom|off', help: 'how the apply_patch edit tool is offered (default builtin)', apply: (o, v) => { o.patchTool = checkPatchTool(v, '--patch-tool'); } },
  { long: 'sandbox', value: 'MODE', help: 'read-only, workspace-write (default) or danger-full-access', apply: (o, v) => { o.sandbox = checkSandbox(v); } },
  { long: 'web-search', value: 'on|off', help: 'offer the hosted web search tool (default: on for api.openai.com)', apply: (o, v) => { o.webSearch = checkOnOff(v, '--web-search'); } },
  { long: 'image-generation', value: 'on|off', help: 'offer the hosted image generation tool (default off)', apply: (o, v) => { o.imageGeneration = checkOnOff(v, '--image-generation'); } },
];

export function checkOnOff(v: string, where: string): boolean {
  if (v === 'on' || v === 'off') return v === 'on';
  throw new UsageError(`${where}: expected "on" or "off", got "${v}"`);
}

function checkSandbox(v: string): string {
  if (parseSandboxValue(v)) return v;
  throw new UsageError(`--sandbox: expected ${SANDBOX_VALUES_TEXT}, got "${v}"`);
}

export function checkPatchTool(v: string, where: string): PatchToolKind {
  if (v === 'builtin' || v === 'function' || v === 'custom' || v === 'off') return v;
  throw new UsageError(`${where}: expected builtin, function, custom or off, got "${v}"`);
}

export function checkShellTool(v: string, where: string): ShellToolKind {
  if (v === 'builtin' || v === 'function') return v;
  throw new UsageError(`${where}: expected "builtin" or "function", got "${v}"`);
}

function checkUrl(v: string): string {
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return v;
  } catch { /* reported below */ }
  throw new UsageError(`--base-url: not an http(s) URL: "${v}"`);
}

function defaults(): CliOptions {
  return {
    command: 'run', message: [], quiet: false, json: false, confirm: false, debug: false, color: true, raw: false,
    showUsage: true, showTimers: true, showReasoning: true, showShellCalls: true, readStdin: false,
  };
}

export function parseArgs(argv: readonly string[]): CliOptions {
  const o = defaults();
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const takeValue = (spec: FlagSpec, inline: string | undefined): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`--${spec.long} needs a value (${spec.value ?? 'VALUE'})`);
      i++;
      return next;
    };
    if (arg === '--') { words.push(...argv.slice(i + 1)); break; }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq === -1 ? undefined : eq);
      const spec = FLAGS.find((f) => f.long === name);
      if (!spec) throw new UsageError(`unknown option --${name}`);
      const inline = eq === -1 ? undefined : arg.slice(eq + 1);
      if (!spec.value && inline !== undefined) throw new UsageError(`--${name} takes no value`);
      spec.apply(o, spec.value ? takeValue(spec, inline) : '');
      continue;
    }
    if (arg.length > 1 && arg.startsWith('-')) {
      // Stacked short flags: -qC dir, -qCdir.
      for (let j = 1; j < arg.length; j++) {
        const ch = arg[j];
        const spec = FLAGS.find((f) => f.short === ch);
        if (!spec) throw new UsageError(`unknown option -${ch}`);
        if (spec.value) {
          const rest = arg.slice(j + 1);
          spec.apply(o, takeValue(spec, rest === '' ? undefined : rest));
          break;
        }
        spec.apply(o, '');
      }
      continue;
    }
    words.push(arg);
  }
  if (o.command === 'help' || o.command === 'version') return o;
  if (words[0] === 'setup' && words.length === 1) {
    o.command = 'setup';
    return o;
  }
  if (o.apiKey !== undefined) throw new UsageError('--api-key is only accepted by `agentx setup`');
  if (words[0] === 'mcp' && words[1] === 'list' && words.length === 2) {
    o.command = 'mcp-list';
    return o;
  }
  if (words[0] === '-') {
    o.readStdin = true;
    words.shift();
  }
  o.message = words;
  return o;
}

export function helpText(version: string): string {
  const rows = FLAGS.map((f) => {
    const names = `${f.short ? `-${f.short}, ` : '    '}--${f.long}${f.value ? ` ${f.value}` : ''}`;
    return `  ${names.padEnd(34)}${f.help}`;
  });
  return [
    `agentx ${version} — a terminal coding agent on the OpenAI Responses API`,
    '',
    'Usage:',
    '  agentx                      interactive session in this directory',
    '  agentx "message"            one-shot: answer on stdout, then exit',
    '  agentx - | cmd | agentx "…" one-shot with the message (or context) read from stdin',
    '  agentx setup                configure API key, model and base URL',
    '  agentx mcp list             MCP servers: state, transport, tool count',
    '',
    'Options:',
    ...rows,
    '',
    'Environment: AGENTX_API_KEY (or OPENAI_API_KEY), AGENTX_BASE_URL (or OPENAI_BASE_URL),',
    '  AGENTX_MODEL, AGENTX_REASONING_EFFORT, AGENTX_SHELL_TOOL, AGENTX_PATCH_TOOL, AGENTX_CONFIG (default ~/.agentx),',
    '  AGENTX_SANDBOX (a --sandbox mode, or off-if-unavailable), AGENTX_SANDBOX_NETWORK=on|off (default off),',
    '  AGENTX_SANDBOX_UNIX_SOCKETS=on|off (Unix sockets in the sandbox, default off),',
    '  AGENTX_WEB_SEARCH=on|off (default on for api.openai.com), AGENTX_IMAGE_GENERATION=on|off (default off).',
    'Timeouts and limits: AGENTX_HEADERS_TIMEOUT_MS (wait for response headers, default 60000),',
    '  AGENTX_STREAM_IDLE_MS (silence inside a stream, default 300000), AGENTX_MAX_OUTPUT_BYTES',
    '  (ceiling per command output stream, default 65536), AGENTX_STDIN_GRACE_MS (idle stdin pipe',
    '  ignored after this when a message is given, default 1000), AGENTX_MAX_STDIN_BYTES.',
    'File rollback: AGENTX_SNAPSHOTS=on|off (default on), AGENTX_SNAPSHOT_MAX_FILE_BYTES (default 5242880),',
    '  AGENTX_SNAPSHOT_STORE_MAX_BYTES (all projects\' snapshots, default 2147483648).',
    'Exit codes: 0 answered, 1 request failed, 2 usage/config error, 130 interrupted.',
    '',
  ].join('\n');
}
