// Flag parsing for agentx. Hand-written instead of a library: the grammar is small and every
// millisecond of startup counts. Pure: takes argv, returns options or throws UsageError.
import { DEFAULT_SANDBOX_MODE, OFF_IF_UNAVAILABLE, parseSandboxValue, SANDBOX_MODES, SANDBOX_VALUES_TEXT } from '../sandbox/policy.ts';
import { APPROVAL_MODES, type ApprovalMode } from '../tools/permissions/escalation.ts';
import { apiKeyProblem, baseUrlProblem } from '../config/setting-checks.ts';
import { UsageError } from './errors.ts';

export type ShellToolKind = 'builtin' | 'function';
export type PatchToolKind = 'builtin' | 'function' | 'custom' | 'off';

export interface CliOptions {
  command: 'run' | 'setup' | 'help' | 'version' | 'mcp-list' | 'clean' | 'resume';
  message: string[]; // words of a one-shot message ('-' means read stdin)
  cwd?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string; // only accepted by `agentx setup --api-key`
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
  webSearch?: boolean; // --web-search on|off (hosted tool)
  imageGeneration?: boolean; // --image-generation on|off (hosted tool)
  patchTool?: PatchToolKind;
  sandbox?: string; // --sandbox MODE, checked by parseSandboxValue
  /** `--approval MODE` (untrusted | on-request | never); `--confirm` is `--approval untrusted`. */
  approval?: ApprovalMode;
  readStdin: boolean; // `agentx -`
  /** `--fresh`: the one-shot starts from an empty conversation, not from .agentx_checkpoint. */
  fresh: boolean;
  /** `--plan`: plan mode (read-only sandbox, no edit tool); the REPL starts in it, a one-shot only plans. */
  plan?: boolean;
  /** `agentx resume --last`: the newest earlier conversation, without the list. */
  resumeLast?: boolean;
}

interface FlagSpec {
  long: string;
  short?: string;
  value?: string; // name of the value when the flag takes one
  help: string;
  apply(o: CliOptions, v: string): void;
}

const FLAGS: FlagSpec[] = [
  {
    long: 'help',
    short: 'h',
    help: 'show this help',
    apply: (o) => {
      o.command = 'help';
    },
  },
  {
    long: 'version',
    short: 'v',
    help: 'print the version',
    apply: (o) => {
      o.command = 'version';
    },
  },
  {
    long: 'cwd',
    short: 'C',
    value: 'DIR',
    help: 'run in DIR instead of the current directory',
    apply: (o, v) => {
      o.cwd = v;
    },
  },
  {
    long: 'model',
    short: 'm',
    value: 'NAME',
    // config.ts's DEFAULT_MODEL (not imported: config.ts imports this module; args.test.ts checks it).
    help: 'model to use (default: AGENTX_MODEL from the environment or the config file, else gpt-5.1)',
    apply: (o, v) => {
      o.model = v;
    },
  },
  {
    long: 'base-url',
    value: 'URL',
    help: 'Responses API base URL',
    apply: (o, v) => {
      o.baseUrl = checkUrl(v);
    },
  },
  {
    long: 'api-key',
    value: 'KEY',
    help: 'with `setup`: the API key to store',
    apply: (o, v) => {
      o.apiKey = checkApiKey(v);
    },
  },
  {
    long: 'quiet',
    short: 'q',
    help: 'print the answer only',
    apply: (o) => {
      o.quiet = true;
    },
  },
  {
    long: 'json',
    help: 'JSONL events on stdout (errors too); one-shots only',
    apply: (o) => {
      o.json = true;
    },
  },
  {
    long: 'last',
    help: 'with resume: the newest earlier conversation, without asking',
    apply: (o) => {
      o.resumeLast = true;
    },
  },
  {
    long: 'fresh',
    help: 'one-shot from an empty conversation, not the last checkpoint',
    apply: (o) => {
      o.fresh = true;
    },
  },
  {
    long: 'confirm',
    help: 'same as --approval untrusted',
    apply: (o) => {
      o.confirm = true;
      o.approval ??= 'untrusted';
    },
  },
  {
    long: 'approval',
    value: 'MODE',
    help: 'untrusted (ask before each command no rule allows and each other tool call), on-request (REPL default), never (one-shot default)',
    apply: (o, v) => {
      o.approval = checkApproval(v, '--approval');
    },
  },
  {
    long: 'plan',
    help: 'plan mode: the model reads and plans, changes nothing (commands read-only, no edits)',
    apply: (o) => {
      o.plan = true;
    },
  },
  {
    long: 'debug',
    help: 'log requests/responses to ~/.agentx-logs (secrets redacted)',
    apply: (o) => {
      o.debug = true;
    },
  },
  {
    long: 'no-color',
    help: 'no colours',
    apply: (o) => {
      o.color = false;
    },
  },
  {
    long: 'raw',
    help: 'answers as plain text, not rendered Markdown (as with NO_COLOR)',
    apply: (o) => {
      o.raw = true;
    },
  },
  {
    long: 'no-usage',
    help: 'hide the usage line',
    apply: (o) => {
      o.showUsage = false;
    },
  },
  {
    long: 'no-timers',
    help: 'hide durations',
    apply: (o) => {
      o.showTimers = false;
    },
  },
  {
    long: 'no-reasoning',
    help: 'hide reasoning summaries',
    apply: (o) => {
      o.showReasoning = false;
    },
  },
  {
    long: 'no-shell-calls',
    help: 'hide shell call display (they still run)',
    apply: (o) => {
      o.showShellCalls = false;
    },
  },
  {
    long: 'shell-tool',
    value: 'builtin|function',
    help: 'how the shell tool is offered to the model (default builtin)',
    apply: (o, v) => {
      o.shellTool = checkShellTool(v, '--shell-tool');
    },
  },
  {
    long: 'patch-tool',
    value: 'builtin|function|custom|off',
    help: 'how the apply_patch edit tool is offered (default builtin)',
    apply: (o, v) => {
      o.patchTool = checkPatchTool(v, '--patch-tool');
    },
  },
  {
    long: 'sandbox',
    value: 'MODE',
    help: `${SANDBOX_MODES.map((m) => (m === DEFAULT_SANDBOX_MODE ? `${m} (default)` : m)).join(', ')} or ${OFF_IF_UNAVAILABLE} (${DEFAULT_SANDBOX_MODE} where bubblewrap works, else no sandbox)`,
    apply: (o, v) => {
      o.sandbox = checkSandbox(v);
    },
  },
  {
    long: 'web-search',
    value: 'on|off',
    help: 'offer the hosted web search tool (default: on for api.openai.com)',
    apply: (o, v) => {
      o.webSearch = checkOnOff(v, '--web-search');
    },
  },
  {
    long: 'image-generation',
    value: 'on|off',
    help: 'offer the hosted image generation tool (default off)',
    apply: (o, v) => {
      o.imageGeneration = checkOnOff(v, '--image-generation');
    },
  },
];

export function checkApproval(v: string, where: string): ApprovalMode {
  if ((APPROVAL_MODES as readonly string[]).includes(v)) return v as ApprovalMode;
  throw new UsageError(`${where}: expected ${APPROVAL_MODES.join(', ')}, got "${v}"`);
}

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

/** The same check as AGENTX_BASE_URL's at start (config/connection-checks.ts). */
function checkUrl(v: string): string {
  const problem = baseUrlProblem(v);
  if (problem !== undefined) throw new UsageError(`--base-url: ${problem}`);
  return v;
}

/** The same check as AGENTX_API_KEY's at start: a key that cannot be sent is not saved. */
function checkApiKey(v: string): string {
  const problem = apiKeyProblem(v);
  if (problem !== undefined) throw new UsageError(`--api-key: ${problem}`);
  return v;
}

function defaults(): CliOptions {
  return {
    command: 'run',
    message: [],
    quiet: false,
    json: false,
    confirm: false,
    debug: false,
    color: true,
    raw: false,
    showUsage: true,
    showTimers: true,
    showReasoning: true,
    showShellCalls: true,
    readStdin: false,
    fresh: false,
  };
}

/** The subcommands: the exact words that select them. Anything else is a one-shot message. */
/** `loose`: followed by other words it is a message ("help me fix this"), not an unknown command. */
const COMMANDS: { words: string[]; command: CliOptions['command']; help: string; loose?: boolean }[] = [
  { words: ['setup'], command: 'setup', help: 'configure API key, model and base URL' },
  { words: ['mcp', 'list'], command: 'mcp-list', help: 'MCP servers: state, transport, tool count' },
  { words: ['resume'], command: 'resume', help: 'the REPL on an earlier conversation here: pick one (--last: the newest)' },
  { words: ['clean'], command: 'clean', help: 'remove leftover one-shot state files here' },
  { words: ['help'], command: 'help', help: 'this help (as --help)', loose: true },
  { words: ['version'], command: 'version', help: 'the version (as --version)', loose: true },
];
/** `agentx mcp add|get|…` are dispatched by main.ts before parsing (they have their own flags). */
export const MCP_EDIT_COMMANDS = ['add', 'get', 'remove', 'login', 'logout'] as const;

/** The edit command `words` name when they are all before `--` (`mcp get x`), else undefined. */
function mcpEditCommand(words: readonly string[], bare: number): string | undefined {
  const action = words[1] ?? '';
  return words[0] === 'mcp' && (MCP_EDIT_COMMANDS as readonly string[]).includes(action) && bare === words.length ? action : undefined;
}

const HELP_FLAGS = new Set(['--help', '-h']);

/** True when the words after `mcp` ask for its own help: `help`, or --help/-h before any `--` (after it, they are a server's command line). */
export function wantsMcpHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  const own = end === -1 ? args : args.slice(0, end);
  return own[0] === 'help' || own.some((a) => HELP_FLAGS.has(a));
}

/** True when main.ts hands argv to cli/mcp-command.ts before parsing: an edit command, or MCP's own help. */
export function isMcpCommandLine(argv: readonly string[]): boolean {
  return argv[0] === 'mcp' && ((MCP_EDIT_COMMANDS as readonly string[]).includes(argv[1] ?? '') || wantsMcpHelp(argv.slice(1)));
}
const COMMAND_LIST = 'setup, mcp list|add|get|remove|login|logout, resume, clean';

/**
 * Single words that read like a command of some other agent CLI. Alone they are refused rather
 * than sent to the model as a (paid) prompt; with more words ("run the tests") they are a message.
 */
const RESERVED_WORDS = new Set([
  'continue',
  'login',
  'logout',
  'auth',
  'init',
  'config',
  'status',
  'doctor',
  'update',
  'upgrade',
  'exec',
  'run',
  'chat',
  'serve',
  'list',
  'ls',
  'completion',
  'mcp',
  'apply',
  'sessions',
  'history',
  'model',
  'models',
]);

/**
 * Which subcommand the words name (README "Commands"): exactly a command's words; a command's
 * first word followed by anything else is an unknown command (`agentx mcp add`); a lone reserved
 * word is refused. `bare` counts the words before `--`: what follows `--` is always a message.
 */
function commandOf(words: readonly string[], bare: number): CliOptions['command'] {
  if (bare === 0 || words[0] === '-') return 'run';
  const first = words[0] ?? '';
  // Reached only with options before it (main.ts dispatches `agentx mcp add …` first).
  const edit = mcpEditCommand(words, bare);
  if (edit !== undefined) throw new UsageError(`'mcp ${edit}' takes its own options: put it first (agentx mcp ${edit} NAME …; docs/mcp.md)`);
  const known = COMMANDS.filter((c) => c.words[0] === first && c.loose !== true);
  const exact = COMMANDS.find((c) => bare === words.length && c.words.length === words.length && c.words.every((w, i) => w === words[i]));
  if (exact) return exact.command;
  // Quoting one word changes nothing (the shell passes the same argument): only -- makes it a message.
  const asPrompt = words.length === 1 ? `to send it as a message: agentx -- ${first}` : `to send it as a message, quote it: agentx "${words.join(' ')}"`;
  if (first === 'mcp' && words.length === 1) {
    throw new UsageError(`'mcp' needs a subcommand: list, add, get, remove, login, logout (${asPrompt})`);
  }
  // All of a command's words and more (`agentx mcp list extra`): that command, given arguments it does not take.
  const withExtra = known.find((c) => c.words.length > 1 && words.length > c.words.length && c.words.every((w, i) => w === words[i]));
  if (withExtra) {
    const extra = words.slice(withExtra.words.length);
    throw new UsageError(`'${withExtra.words.join(' ')}' takes no arguments, got ${extra.map((w) => JSON.stringify(w)).join(' ')} (${asPrompt})`);
  }
  if (known.length > 0) {
    throw new UsageError(`unknown command '${words.slice(0, 2).join(' ')}'; commands: ${COMMAND_LIST} (${asPrompt})`);
  }
  if (words.length === 1 && RESERVED_WORDS.has(first)) {
    throw new UsageError(`'${first}' is not a command; commands: ${COMMAND_LIST} (to send it as a message: agentx -- ${first})`);
  }
  return 'run';
}

/**
 * `--json` is the one-shot's event stream (docs/usage.md "JSON output"); the subcommands print
 * text for a person (or start the REPL), so with one of them it is refused in one line rather
 * than ignored by some and half-honoured by others. Its own error is a JSON line too.
 */
export function jsonNotFor(what: string): UsageError {
  return new UsageError(`--json is only accepted by one-shots (agentx --json "message"), not by ${what}, which has no JSON output`);
}

/** jsonNotFor a subcommand, by its words (`mcp list`). */
export function jsonNotForCommand(command: string): UsageError {
  return jsonNotFor(`\`agentx ${command}\``);
}

/** --json was asked for (read before parsing, so a usage error can be a JSON line too). */
export function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

export function parseArgs(argv: readonly string[]): CliOptions {
  const o = defaults();
  const words: string[] = [];
  let bare = -1;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const takeValue = (spec: FlagSpec, inline: string | undefined): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`--${spec.long} needs a value (${spec.value ?? 'VALUE'})`);
      i++;
      return next;
    };
    if (arg === '--') {
      bare = words.length;
      words.push(...argv.slice(i + 1));
      break;
    }
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
  const bareWords = bare === -1 ? words.length : bare;
  // `agentx --json mcp get x`: the refusal itself, not "put it first" and then the refusal.
  const edit = mcpEditCommand(words, bareWords);
  if (o.json && edit !== undefined) throw jsonNotForCommand(`mcp ${edit}`);
  o.command = commandOf(words, bareWords);
  // help and version (the loose words) print their text whatever else is asked, as --help does.
  const named = COMMANDS.find((c) => c.command === o.command && c.loose !== true);
  if (o.json && named !== undefined) throw jsonNotForCommand(named.words.join(' '));
  if (o.apiKey !== undefined && o.command !== 'setup') throw new UsageError('--api-key is only accepted by `agentx setup`');
  if (o.resumeLast === true && o.command !== 'resume') throw new UsageError('--last is only accepted by `agentx resume`');
  if (o.command !== 'run') return o;
  if (words[0] === '-') {
    o.readStdin = true;
    words.shift();
  }
  o.message = words;
  return o;
}

export function helpText(version: string): string {
  const column = 34;
  const rows = FLAGS.map((f) => {
    const names = `${f.short ? `-${f.short}, ` : '    '}--${f.long}${f.value ? ` ${f.value}` : ''}`;
    // A name too long for its column gets the help on the next line, never glued to it.
    return names.length <= column - 2 ? `  ${names.padEnd(column)}${f.help}` : `  ${names}\n  ${' '.repeat(column)}${f.help}`;
  });
  const commands = COMMANDS.filter((c) => c.loose !== true).map((c) => `  agentx ${c.words.join(' ').padEnd(21)}${c.help}`);
  return [
    `agentx ${version} — a terminal coding agent on the OpenAI Responses API`,
    '',
    'Usage:',
    '  agentx                      interactive session in this directory',
    '  agentx "message"            one-shot: answer on stdout, then exit',
    '  agentx - < prompt.txt       one-shot with the message read from stdin',
    '  cmd | agentx "message"      one-shot: the message, then what cmd printed',
    ...commands,
    '  agentx mcp add|get|remove NAME  edit your MCP servers (agentx mcp add NAME -- cmd args…; flags: agentx mcp --help)',
    '  agentx mcp login|logout NAME    OAuth sign-in to a remote MCP server',
    '',
    'Unknown commands are errors, not prompts: a command word with other words (agentx setup eslint,',
    '  agentx mcp serve) or a lone word like continue or login. Quote such a message as one argument',
    '  (agentx "setup eslint") or put it after -- (agentx -- login).',
    '',
    'Keys in the interactive session: Enter sends; Alt-Enter, Ctrl-J or \\ + Enter insert a new line;',
    '  ↑/↓ move in the message, then history; Ctrl-R searches history; Tab completes /commands and paths;',
    "  @ finds a project file (@path attaches it); Ctrl-O shows the last command's full output;",
    '  Esc or Ctrl-C stops a running turn (Esc-Esc or Ctrl-C clears the line; Ctrl-C twice on an empty',
    '  line exits); Ctrl-D on an empty line exits; /help lists the slash commands.',
    '',
    'Options:',
    ...rows,
    '',
    'Environment: AGENTX_API_KEY (or OPENAI_API_KEY), AGENTX_BASE_URL (or OPENAI_BASE_URL),',
    '  AGENTX_MODEL, AGENTX_REASONING_EFFORT, AGENTX_SHELL_TOOL, AGENTX_PATCH_TOOL, AGENTX_CONFIG (default ~/.agentx),',
    '  AGENTX_SANDBOX (a --sandbox mode, or off-if-unavailable), AGENTX_SANDBOX_NETWORK=on|off (default off),',
    '  AGENTX_SANDBOX_UNIX_SOCKETS=on|off (Unix sockets in the sandbox, default off),',
    '  AGENTX_APPROVAL=untrusted|on-request|never (an --approval mode; rules: docs/permissions.md),',
    '  AGENTX_WEB_SEARCH=on|off (default on for api.openai.com), AGENTX_IMAGE_GENERATION=on|off (default off).',
    'Timeouts and limits: AGENTX_HEADERS_TIMEOUT_MS (wait for response headers, default 60000),',
    '  AGENTX_STREAM_IDLE_MS (silence inside a stream, default 300000), AGENTX_MAX_OUTPUT_BYTES',
    '  (ceiling per command output stream, default 65536), AGENTX_STDIN_GRACE_MS (idle stdin pipe',
    '  ignored after this when a message is given, default 1000), AGENTX_MAX_STDIN_BYTES.',
    'File rollback: AGENTX_SNAPSHOTS=on|off (default on), AGENTX_SNAPSHOT_MAX_FILE_BYTES (default 5242880),',
    "  AGENTX_SNAPSHOT_STORE_MAX_BYTES (all projects' snapshots, default 2147483648).",
    'Retries (interactive: 2, then a menu; one-shot: up to 10, none later than 60 s after the first failure;',
    "  never earlier than a Retry-After asks): AGENTX_MAX_RETRIES (a one-shot's retries after the first attempt),",
    '  AGENTX_RETRY_MAX_MS (that 60 s, in ms).',
    'Exit codes: 0 answered, 1 request failed, 2 usage/config error, 130 interrupted,',
    '  141 stdout closed early (agentx … | head -1) and the turn did not finish.',
    '',
  ].join('\n');
}
