// The environment of every model command, in every mode (danger-full-access included):
// - agentx's secrets are left out: the variables agentx reads its key from, and any variable whose
//   value holds the configured key (a copy under another name, "Bearer <key>");
// - programs that would take over a terminal are told not to: pagers print, git never prompts,
//   and the editor is `false`, so `git commit` without -m fails at once instead of opening vim.
//   (Commands also run without a controlling terminal: tools/supervisor.ts starts a new session.)

/** Variables agentx reads credentials from; never passed to a command whatever their value. */
export const SECRET_ENV_NAMES = [
  'AGENTX_API_KEY', 'agentx_api_key', 'OPENAI_API_KEY', 'OPENAI_ADMIN_KEY', 'AZURE_OPENAI_API_KEY',
] as const;

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

/** `env` for a model command: secrets out, non-interactive settings in. */
export function commandEnvironment(env: NodeJS.ProcessEnv, secrets: readonly string[]): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  const banned = new Set<string>(SECRET_ENV_NAMES);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || banned.has(name) || holdsSecret(value, secrets)) continue;
    out[name] = value;
  }
  return { ...out, ...NON_INTERACTIVE_ENV };
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
