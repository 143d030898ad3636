// `agentx setup` / `/setup`: store API key, model and base URL in ~/.agentx (0600, atomic).
// Flags configure without prompts (scripts, CI); on a TTY it asks, keeping current values on Enter.
import { createInterface } from 'node:readline/promises';
import type { CliOptions } from '../cli/args.ts';
import { EXIT_INTERRUPTED, UsageError } from '../cli/errors.ts';
import { writeFileAtomicSync } from '../lib/atomic-file.ts';
import { configPath } from '../paths.ts';
import { DEFAULT_BASE_URL, DEFAULT_MODEL, readConfigFile } from './config.ts';
import { serializeDotenv } from './dotenv.ts';
import { apiKeyProblem, baseUrlProblem } from './setting-checks.ts';

export interface SetupValues {
  apiKey?: string;
  model?: string;
  baseUrl?: string;
  reasoningEffort?: string;
}

/**
 * Writes the values into the config file. A key or base URL that every request would fail with
 * is refused here (one line, exit 2, the key never shown), not saved to fail at the next start.
 */
export function saveSetup(path: string, values: SetupValues): void {
  const keyProblem = values.apiKey ? apiKeyProblem(values.apiKey) : undefined;
  if (keyProblem !== undefined) throw new UsageError(`API key: ${keyProblem}; nothing was saved`);
  const urlProblem = values.baseUrl ? baseUrlProblem(values.baseUrl) : undefined;
  if (urlProblem !== undefined) throw new UsageError(`base URL: ${urlProblem}; nothing was saved`);
  const current = readConfigFile(path);
  if (values.apiKey) current.AGENTX_API_KEY = values.apiKey;
  if (values.model) current.AGENTX_MODEL = values.model;
  if (values.reasoningEffort) current.AGENTX_REASONING_EFFORT = values.reasoningEffort;
  if (values.baseUrl) current.AGENTX_BASE_URL = values.baseUrl.replace(/\/+$/, '');
  writeFileAtomicSync(path, serializeDotenv(current), 0o600);
}

export function maskKey(key: string | undefined): string {
  if (!key) return 'not set';
  return key.length <= 8 ? '****' : `${key.slice(0, 3)}…${key.slice(-4)}`;
}

/** A value in effect and where it comes from: the environment wins over the file, the file over the default. */
export interface InEffect {
  value: string | undefined;
  source: string;
}

/** The first name set in `env`, then in the file, else the default (the order resolveConfig reads them in). */
export function inEffect(names: readonly string[], env: NodeJS.ProcessEnv, file: Record<string, string>, fallback: string | undefined): InEffect {
  for (const name of names) {
    const v = env[name];
    if (v !== undefined && v !== '') return { value: v, source: `${name} in the environment` };
  }
  for (const name of names) {
    const v = file[name];
    if (v !== undefined && v !== '') return { value: v, source: 'the config file' };
  }
  return { value: fallback, source: 'default' };
}

/** `[value, from SOURCE]`, plus a warning when the environment overrides what is saved. */
function shown(e: InEffect, display: string): string {
  const env = e.source.endsWith('in the environment') ? '; the environment wins over what you save here' : '';
  return `[${display}, from ${e.source}${env}]`;
}

/** Ctrl-C during the dialogue: nothing was saved (the file is written once, at the end). */
export class SetupCancelled extends Error {
  constructor() {
    super('Ctrl-C; nothing was saved');
  }
}

/** Reads a line without echoing it (for the API key). */
async function askHidden(question: string, input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string> {
  const wasRaw = input.isRaw;
  // Echo goes off before the question appears: a key typed (or pasted) the moment the prompt
  // shows must never be echoed by the terminal in cooked mode.
  input.setRawMode(true);
  input.resume();
  output.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const onData = (buf: Buffer): void => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          input.off('data', onData);
          input.setRawMode(wasRaw);
          input.pause();
          output.write('\n');
          resolve(value);
          return;
        }
        // Ctrl-C cancels the whole setup at once (nothing is written), not just this answer.
        if (ch === '\u0003') {
          output.write('\n');
          input.off('data', onData);
          input.setRawMode(wasRaw);
          input.pause();
          reject(new SetupCancelled());
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    input.on('data', onData);
  });
}

export async function interactiveSetup(
  path: string,
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  env: NodeJS.ProcessEnv = process.env,
): Promise<SetupValues> {
  const current = readConfigFile(path);
  // Each question shows the value in effect now and where it comes from, not only the file's.
  const key = inEffect(['AGENTX_API_KEY', 'OPENAI_API_KEY'], env, current, undefined);
  const modelNow = inEffect(['AGENTX_MODEL'], env, current, DEFAULT_MODEL);
  const urlNow = inEffect(['AGENTX_BASE_URL', 'OPENAI_BASE_URL'], env, current, DEFAULT_BASE_URL);
  output.write(`Configuring agentx (${path}). Press Enter to keep a value.\n`);
  const apiKey = await askHidden(`API key ${key.value === undefined ? '[not set]' : shown(key, maskKey(key.value))}: `, input, output);
  const rl = createInterface({ input, output, terminal: true });
  // readline pauses on Ctrl-C when nobody listens: the question would wait forever.
  const cancel = new AbortController();
  rl.on('SIGINT', () => cancel.abort());
  const ask = async (question: string): Promise<string> => {
    try {
      return (await rl.question(question, { signal: cancel.signal })).trim();
    } catch (err) {
      if (cancel.signal.aborted) {
        output.write('\n');
        throw new SetupCancelled();
      }
      throw err;
    }
  };
  try {
    const model = await ask(`Model ${shown(modelNow, modelNow.value ?? DEFAULT_MODEL)}: `);
    const baseUrl = await ask(`Base URL ${shown(urlNow, urlNow.value ?? DEFAULT_BASE_URL)}: `);
    const values: SetupValues = { apiKey: apiKey.trim() || undefined, model: model || undefined, baseUrl: baseUrl || undefined };
    saveSetup(path, values);
    output.write(`Saved to ${path} (mode 0600).\n`);
    return values;
  } finally {
    rl.close();
  }
}

export async function runSetupCommand(cli: CliOptions, env: NodeJS.ProcessEnv): Promise<number> {
  const path = configPath(env);
  if (cli.apiKey !== undefined || cli.model !== undefined || cli.baseUrl !== undefined) {
    saveSetup(path, { apiKey: cli.apiKey, model: cli.model, baseUrl: cli.baseUrl });
    process.stderr.write(`agentx: saved configuration to ${path}\n`);
    return 0;
  }
  if (!process.stdin.isTTY) {
    throw new UsageError('setup needs a terminal, or the values as flags: agentx setup --api-key KEY [--model NAME] [--base-url URL]');
  }
  try {
    await interactiveSetup(path, process.stdin, process.stdout, env);
  } catch (err) {
    if (!(err instanceof SetupCancelled)) throw err;
    process.stderr.write(`agentx: setup cancelled: ${err.message}\n`);
    return EXIT_INTERRUPTED;
  }
  return 0;
}
