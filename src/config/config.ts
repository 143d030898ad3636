// Resolved configuration. Precedence (SPEC §2): flags > environment > config file > defaults.
import { resolve } from 'node:path';
import { checkOnOff, checkPatchTool, checkShellTool, type CliOptions, type PatchToolKind, type ShellToolKind } from '../cli/args.ts';
import { AgentxError, ConfigError, EXIT_USAGE } from '../cli/errors.ts';
import { ContextSettingError, contextWindowFor, parseAutoCompact, type AutoCompactSetting } from '../engine/context.ts';
import { parseStoreSetting, type StoreSetting } from '../engine/conversation.ts';
import { configPath } from '../paths.ts';
import { APPROVAL_MODES, type ApprovalMode } from '../tools/permissions/escalation.ts';
import { DEFAULT_SANDBOX_SETTING, parseNetworkValue, parseSandboxValue, SANDBOX_VALUES_TEXT, type SandboxSetting } from '../sandbox/policy.ts';
import { parseDotenvLines, type DotenvLines } from './dotenv.ts';
import { LIMIT_VARIABLES } from './limits.ts';
import { checkConnectionSettings } from './connection-checks.ts';
import { firstSet } from './setting-checks.ts';
import { resolveSnapshotSettings, type SnapshotSettings } from './snapshots.ts';
import { errorCode, errorMessage, NotRegularFileError, readRegularFileText } from '../lib/fsutil.ts';
import { azureApiVersion, parseExtraHeaders, parseProvider, parseTransport, type Provider, type TransportSetting } from '../model/provider.ts';

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-5.1';
export const NO_KEY_MESSAGE = 'No API key: run "agentx setup" or set AGENTX_API_KEY';

export interface Config {
  apiKey: string | undefined;
  baseUrl: string;
  model: string;
  reasoningEffort: string | undefined;
  shellTool: ShellToolKind;
  /** How the apply_patch tool is offered: --patch-tool, AGENTX_PATCH_TOOL (default builtin). */
  patchTool: PatchToolKind;
  /** Hosted tools offered to the model. */
  webSearch: boolean;
  imageGeneration: boolean;
  configFile: string;
  /** How model commands are sandboxed: --sandbox, AGENTX_SANDBOX, AGENTX_SANDBOX_NETWORK, AGENTX_SANDBOX_UNIX_SOCKETS (README "Sandbox"). */
  sandbox: SandboxSetting;
  /** AGENTX_CONTEXT_WINDOW (validated); unset: the model table or a conservative default. */
  contextWindow: string | undefined;
  /** AGENTX_AUTO_COMPACT, parsed. */
  autoCompact: AutoCompactSetting;
  /** File rollback: AGENTX_SNAPSHOTS, AGENTX_SNAPSHOT_MAX_FILE_BYTES, AGENTX_SNAPSHOT_STORE_MAX_BYTES. */
  snapshots: SnapshotSettings;
  /** AGENTX_STORE: whether the server keeps conversations (on|off|auto; engine/conversation.ts). */
  store: StoreSetting;
  /** AGENTX_PROVIDER, else detected from the base URL (model/provider.ts, docs/providers.md). */
  provider: Provider;
  /** Azure only: the api-version query parameter (AGENTX_AZURE_API_VERSION); undefined sends none. */
  azureApiVersion: string | undefined;
  /** AGENTX_HEADERS: added to every model request. Values are secrets: never logged, shown or stored. */
  extraHeaders: Record<string, string>;
  /** AGENTX_TRANSPORT: auto | websocket | http (docs/transport.md). */
  transport: TransportSetting;
  /** AGENTX_CA_FILE (environment or config file): a PEM file of private CAs, trusted for every https/wss connection. */
  caFile: string | undefined;
  /** --approval / --confirm, AGENTX_APPROVAL (env or config file); undefined: the front-end's default (docs/permissions.md). */
  approval: ApprovalMode | undefined;
  /** One line each, for the front-end to show at start: settings that are wrong but not agentx's to refuse (setting-checks.ts). */
  warnings?: readonly string[];
}

export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

export function readConfigFile(path: string): Record<string, string> {
  return readConfigFileLines(path).values;
}

/** The config file's values, and where each line that is not `KEY=value` is (a missing file: nothing). */
export function readConfigFileLines(path: string): DotenvLines {
  let text: string;
  try {
    // A FIFO (or a device) in place of the file used to block every start forever; now it is
    // refused like any other unreadable config.
    text = readRegularFileText(path);
  } catch (err) {
    if (err instanceof NotRegularFileError) throw new ConfigError(`config file ${path} is not a regular file`);
    if (errorCode(err) === 'ENOENT') return { values: {}, lineOf: {}, skipped: [] };
    throw new ConfigError(`cannot read config file ${path}: ${errorMessage(err)}`);
  }
  return parseDotenvLines(text);
}

/**
 * Variables agentx reads from the environment only (docs/configuration.md: limits, the proxies,
 * the bwrap binary, the config file's own path). Written in the config file they would do nothing
 * at all, so that is said rather than left to look like a setting in force.
 */
const ENVIRONMENT_ONLY = new Set([
  ...Object.values(LIMIT_VARIABLES),
  'AGENTX_RETRY_BASE_MS',
  'AGENTX_BWRAP',
  'AGENTX_CONFIG',
  'OPENAI_BASE_URL',
  'NODE_EXTRA_CA_CERTS',
  ...['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY'].flatMap((n) => [n, n.toLowerCase()]),
]);

/** A file that is not a config file at all (a binary pasted over it) is a few lines, not thousands. */
const MAX_LINE_WARNINGS = 3;

/**
 * One warning per line of the config file that does nothing: a line that is not `KEY=value` (a
 * typo such as `AGENTX_MODEL gpt-5`), and a variable that is read from the environment only. A
 * line is named by its number and, when it reads like a setting's name, its first word; never by
 * anything else in it (it may be a pasted key).
 */
export function configFileWarnings(file: string, read: DotenvLines): string[] {
  const skipped = read.skipped
    .slice(0, MAX_LINE_WARNINGS)
    .map(({ line, name }) =>
      name === undefined
        ? `${file} line ${line} is not KEY=value, so it is ignored (its text is not shown: it may hold a key)`
        : `${file} line ${line}: no "=" after ${name}, so the line is ignored (write ${name}=value)`,
    );
  const more = read.skipped.length - MAX_LINE_WARNINGS;
  if (more > 0) skipped.push(`${file}: ${more} more line${more === 1 ? '' : 's'} that ${more === 1 ? 'is' : 'are'} not KEY=value, ignored`);
  const envOnly = Object.keys(read.values)
    .filter((key) => ENVIRONMENT_ONLY.has(key))
    .map((key) => `${key} in ${file} (line ${read.lineOf[key] ?? '?'}) is ignored: it is read from the environment only (docs/configuration.md)`);
  return [...skipped, ...envOnly];
}

/**
 * A configuration error about a value that came from the config file names the file
 * ("AGENTX_STORE in /home/me/.agentx: …"): each setting's check names only the variable, which
 * would send the person looking in their environment for it. The value is the file's when the
 * environment does not set it (pick's rule); a flag never reaches here with a bad value (its
 * parser refuses it first).
 */
function tracedToFile(err: unknown, env: NodeJS.ProcessEnv, fileValues: Record<string, string>, file: string): unknown {
  if (!(err instanceof AgentxError) || err.exitCode !== EXIT_USAGE) return err;
  const key = /^([A-Z][A-Z0-9_]*)(?=[: ])/.exec(err.message)?.[1];
  if (key === undefined || err.message.startsWith(`${key} in `)) return err;
  const fromFile = pick(env[key]) === undefined && pick(fileValues[key]) !== undefined;
  return fromFile ? new ConfigError(`${key} in ${file}${err.message.slice(key.length)}`) : err;
}

function pick(...values: (string | undefined)[]): string | undefined {
  return values.find((v) => v !== undefined && v !== '');
}

/** OpenAI's own service (where hosted tools such as web search exist) as opposed to a compatible server. */
export function isOpenAiBaseUrl(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/** An on/off setting: flag, else environment, else config file, else the default. */
function onOff(flag: boolean | undefined, name: string, env: NodeJS.ProcessEnv, file: Record<string, string>, fallback: boolean): boolean {
  if (flag !== undefined) return flag;
  const raw = pick(env[name], file[name]);
  if (raw === undefined) return fallback;
  try {
    return checkOnOff(raw, name);
  } catch (err) {
    throw new ConfigError(errorMessage(err));
  }
}

function resolveSandbox(flag: string | undefined, env: NodeJS.ProcessEnv, fileValues: Record<string, string>): SandboxSetting {
  const raw = flag ?? pick(env.AGENTX_SANDBOX, fileValues.AGENTX_SANDBOX);
  const parsed = raw === undefined ? DEFAULT_SANDBOX_SETTING : parseSandboxValue(raw);
  if (!parsed) throw new ConfigError(`AGENTX_SANDBOX: expected ${SANDBOX_VALUES_TEXT}, got "${raw ?? ''}"`);
  const netRaw = pick(env.AGENTX_SANDBOX_NETWORK, fileValues.AGENTX_SANDBOX_NETWORK);
  const network = netRaw === undefined ? DEFAULT_SANDBOX_SETTING.network : parseNetworkValue(netRaw);
  if (network === undefined) throw new ConfigError(`AGENTX_SANDBOX_NETWORK: expected on or off, got "${netRaw ?? ''}"`);
  const unixRaw = pick(env.AGENTX_SANDBOX_UNIX_SOCKETS, fileValues.AGENTX_SANDBOX_UNIX_SOCKETS);
  const unixSockets = unixRaw === undefined ? false : parseNetworkValue(unixRaw);
  // No list of sockets: the filter cannot see which path connect() names, so a list would promise
  // a limit nothing enforces.
  if (unixSockets === undefined)
    throw new ConfigError(`AGENTX_SANDBOX_UNIX_SOCKETS: expected on or off (a list of sockets cannot be enforced), got "${unixRaw ?? ''}"`);
  return { mode: parsed.mode, offIfUnavailable: parsed.offIfUnavailable, network, unixSockets };
}

function resolveApproval(flag: ApprovalMode | undefined, env: NodeJS.ProcessEnv, fileValues: Record<string, string>): ApprovalMode | undefined {
  if (flag !== undefined) return flag;
  const raw = pick(env.AGENTX_APPROVAL, fileValues.AGENTX_APPROVAL);
  if (raw === undefined) return undefined;
  if (!(APPROVAL_MODES as readonly string[]).includes(raw)) throw new ConfigError(`AGENTX_APPROVAL: expected ${APPROVAL_MODES.join(', ')}, got "${raw}"`);
  return raw as ApprovalMode;
}

/** The flags that take part in the configuration (the rest are the front-ends'). */
export type ConfigFlags = Pick<CliOptions, 'model' | 'baseUrl' | 'shellTool' | 'patchTool' | 'sandbox' | 'webSearch' | 'imageGeneration'> & {
  approval?: ApprovalMode;
};

export function resolveConfig(flags: ConfigFlags, env: NodeJS.ProcessEnv): Config {
  const file = configPath(env);
  const read = readConfigFileLines(file);
  try {
    const config = resolveFrom(flags, env, file, read.values);
    return { ...config, warnings: [...configFileWarnings(file, read), ...(config.warnings ?? [])] };
  } catch (err) {
    throw tracedToFile(err, env, read.values, file);
  }
}

function resolveFrom(flags: ConfigFlags, env: NodeJS.ProcessEnv, file: string, fileValues: Record<string, string>): Config {
  const inFile = (key: string): string => `${key} in ${file}`;
  const apiKeySetting = firstSet(
    ['AGENTX_API_KEY', env.AGENTX_API_KEY],
    ['agentx_api_key', env.agentx_api_key],
    ['OPENAI_API_KEY', env.OPENAI_API_KEY],
    [inFile('AGENTX_API_KEY'), fileValues.AGENTX_API_KEY],
    [inFile('OPENAI_API_KEY'), fileValues.OPENAI_API_KEY],
  );
  const baseUrlSetting = firstSet(
    ['--base-url', flags.baseUrl],
    ['AGENTX_BASE_URL', env.AGENTX_BASE_URL],
    ['OPENAI_BASE_URL', env.OPENAI_BASE_URL],
    [inFile('AGENTX_BASE_URL'), fileValues.AGENTX_BASE_URL],
  );
  // Before anything else is read from them: a mistake here would fail every request (connection-checks.ts).
  const warnings = checkConnectionSettings({
    apiKey: apiKeySetting,
    baseUrl: baseUrlSetting,
    caFile: firstSet(['AGENTX_CA_FILE', env.AGENTX_CA_FILE], [inFile('AGENTX_CA_FILE'), fileValues.AGENTX_CA_FILE]),
    env,
  });
  const apiKey = apiKeySetting?.value;
  const baseUrl = baseUrlSetting?.value ?? DEFAULT_BASE_URL;
  const model = pick(flags.model, env.AGENTX_MODEL, fileValues.AGENTX_MODEL) ?? DEFAULT_MODEL;
  const effort = pick(env.AGENTX_REASONING_EFFORT, fileValues.AGENTX_REASONING_EFFORT);
  if (effort !== undefined && !EFFORTS.includes(effort)) {
    throw new ConfigError(`AGENTX_REASONING_EFFORT: expected one of ${EFFORTS.join(', ')}, got "${effort}"`);
  }
  const shellRaw = flags.shellTool ?? pick(env.AGENTX_SHELL_TOOL, fileValues.AGENTX_SHELL_TOOL);
  const shellTool = shellRaw === undefined ? 'builtin' : checkShellTool(shellRaw, 'AGENTX_SHELL_TOOL');
  const patchRaw = flags.patchTool ?? pick(env.AGENTX_PATCH_TOOL, fileValues.AGENTX_PATCH_TOOL);
  const patchTool = patchRaw === undefined ? 'builtin' : checkPatchTool(patchRaw, 'AGENTX_PATCH_TOOL');
  const sandbox = resolveSandbox(flags.sandbox, env, fileValues);
  // Compatible servers (Ollama, vLLM, proxies) rarely have hosted web search: on only for OpenAI unless set.
  const webSearch = onOff(flags.webSearch, 'AGENTX_WEB_SEARCH', env, fileValues, isOpenAiBaseUrl(baseUrl));
  const imageGeneration = onOff(flags.imageGeneration, 'AGENTX_IMAGE_GENERATION', env, fileValues, false);
  const storeRaw = pick(env.AGENTX_STORE, fileValues.AGENTX_STORE);
  const store = parseStoreSetting(storeRaw);
  if (typeof store !== 'string') throw new ConfigError(store.error);
  const wire = wireSettings(env, fileValues, baseUrl);
  const context = contextSettings(
    pick(env.AGENTX_CONTEXT_WINDOW, fileValues.AGENTX_CONTEXT_WINDOW),
    pick(env.AGENTX_AUTO_COMPACT, fileValues.AGENTX_AUTO_COMPACT),
    model,
  );
  return {
    apiKey,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    model,
    reasoningEffort: effort,
    shellTool,
    patchTool,
    webSearch,
    imageGeneration,
    // Absolute, as it was read (relative to the working directory): the sandbox hides exactly this file.
    configFile: resolve(file),
    sandbox,
    ...context,
    snapshots: resolveSnapshotSettings(env, fileValues),
    store,
    ...wire,
    approval: resolveApproval(flags.approval, env, fileValues),
    warnings,
  };
}

/** Provider, transport and extra headers, each checked now (one line at start for a bad value). */
function wireSettings(
  env: NodeJS.ProcessEnv,
  file: Record<string, string>,
  baseUrl: string,
): Pick<Config, 'provider' | 'azureApiVersion' | 'extraHeaders' | 'transport' | 'caFile'> {
  const provider = parseProvider(pick(env.AGENTX_PROVIDER, file.AGENTX_PROVIDER), baseUrl);
  if (typeof provider !== 'string') throw new ConfigError(provider.error);
  const transport = parseTransport(pick(env.AGENTX_TRANSPORT, file.AGENTX_TRANSPORT));
  if (typeof transport !== 'string') throw new ConfigError(transport.error);
  const extraHeaders = parseExtraHeaders(pick(env.AGENTX_HEADERS, file.AGENTX_HEADERS));
  if ('error' in extraHeaders) throw new ConfigError(extraHeaders.error);
  // An empty AGENTX_AZURE_API_VERSION means "send none", so it is read as set (not via pick).
  const versionRaw = env.AGENTX_AZURE_API_VERSION ?? file.AGENTX_AZURE_API_VERSION;
  return {
    provider,
    transport,
    extraHeaders: extraHeaders.headers,
    azureApiVersion: provider === 'azure' ? azureApiVersion(versionRaw, baseUrl) : undefined,
    caFile: caFileSetting(env, file),
  };
}

/**
 * AGENTX_CA_FILE: the environment, else the config file. For commands that resolve no full
 * configuration (`agentx mcp list|login`), `file` is read here.
 */
export function caFileSetting(env: NodeJS.ProcessEnv, file: Record<string, string> = readConfigFile(configPath(env))): string | undefined {
  return pick(env.AGENTX_CA_FILE, file.AGENTX_CA_FILE);
}

/** The context window settings, checked now so a bad value is one line at start, not a failure mid-session. */
function contextSettings(window: string | undefined, autoCompact: string | undefined, model: string): Pick<Config, 'contextWindow' | 'autoCompact'> {
  try {
    contextWindowFor(model, window);
    return { contextWindow: window, autoCompact: parseAutoCompact(autoCompact) };
  } catch (err) {
    if (err instanceof ContextSettingError) throw new ConfigError(err.message);
    throw err;
  }
}
