// The environment of every model command, in every mode (danger-full-access included):
// - agentx's secrets are left out: the variables agentx reads its key from, and any variable whose
//   value holds the configured key (a copy under another name, "Bearer <key>");
// - programs that would take over a terminal are told not to: pagers print, git never prompts,
//   and the editor is `false`, so `git commit` without -m fails at once instead of opening vim.
//   (Commands also run without a controlling terminal: tools/supervisor.ts starts a new session.)

/** Variables agentx reads credentials from; never passed to a command whatever their value. */
export const SECRET_ENV_NAMES = ['AGENTX_API_KEY', 'agentx_api_key', 'OPENAI_API_KEY', 'OPENAI_ADMIN_KEY', 'AZURE_OPENAI_API_KEY'] as const;

/**
 * Variables that point programs at the person's terminal multiplexer or editor, which run what
 * they are sent outside any sandbox (`tmux run-shell`, `screen -X`, kitty/WezTerm remote control,
 * `nvim --remote-send`, VS Code's CLI). Never passed to a command: commands run without a
 * terminal anyway, and nothing they do should land in the person's terminal session.
 */
export const TERMINAL_CONTROL_ENV_NAMES = [
  'TMUX',
  'TMUX_PANE',
  'STY',
  'ZELLIJ',
  'ZELLIJ_SESSION_NAME',
  'KITTY_LISTEN_ON',
  'WEZTERM_UNIX_SOCKET',
  'NVIM',
  'NVIM_LISTEN_ADDRESS',
  'VSCODE_IPC_HOOK_CLI',
  'VSCODE_GIT_IPC_HANDLE',
] as const;

/**
 * The session's service sockets (bus, agents). Left out of sandboxed commands that may not
 * create Unix sockets: they could not use them, and their paths are hidden (policy.ts) anyway.
 */
export const SESSION_SOCKET_ENV_NAMES = ['DBUS_SESSION_BUS_ADDRESS', 'DBUS_SYSTEM_BUS_ADDRESS', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO'] as const;

/** Set for every command, overriding the person's own values. */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'false',
  EDITOR: 'false',
  VISUAL: 'false',
  GIT_SEQUENCE_EDITOR: 'false',
};

/** Shorter keys are matched exactly only: a short test key must not blank unrelated variables. */
const MIN_SUBSTRING_SECRET = 8;

function holdsSecret(value: string, secrets: readonly string[]): boolean {
  return secrets.some((s) => s !== '' && (value === s || (s.length >= MIN_SUBSTRING_SECRET && value.includes(s))));
}

/** `env` for a model command: secrets and terminal-control variables out, non-interactive settings in. */
export function commandEnvironment(env: NodeJS.ProcessEnv, secrets: readonly string[]): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  const banned = new Set<string>([...SECRET_ENV_NAMES, ...TERMINAL_CONTROL_ENV_NAMES]);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || banned.has(name) || holdsSecret(value, secrets)) continue;
    out[name] = value;
  }
  return { ...out, ...NON_INTERACTIVE_ENV };
}

/** A command environment for the sandbox: without the session's socket variables unless Unix sockets are allowed. */
export function sandboxedEnvironment(env: NodeJS.ProcessEnv, unixSockets: boolean): NodeJS.ProcessEnv {
  if (unixSockets) return env;
  const out = { ...env };
  for (const name of SESSION_SOCKET_ENV_NAMES) delete out[name];
  return out;
}

/**
 * The second line of defence (issue 14): the key, wherever a command still found it (in
 * danger-full-access it can read the config file), is replaced before its output is kept or sent.
 * Exact matches only, of keys long enough not to blank ordinary text.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= MIN_SUBSTRING_SECRET) out = out.split(s).join('[REDACTED]');
  return out;
}
