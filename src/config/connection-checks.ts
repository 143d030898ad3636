// The settings every request depends on, checked once at start (resolveConfig): a mistake in
// one of them (a proxy URL agentx cannot speak, a CA file that is not there, an ftp:// base URL,
// a key with a line break in it) would otherwise fail every request, and a failed request is
// retried as a connection failure for up to a minute before exit 1. Here it is one line naming
// the setting, exit 2 (ConfigError), before any request. The lines never quote a key or a proxy
// URL (either may hold a secret); what they do quote passes the terminal sanitiser in main.ts
// like every error line.
import { ConfigError } from '../cli/errors.ts';
import { CaFileError, readCaFile } from '../lib/ca-file.ts';
import { checkProxyEnv, ProxyConfigError } from '../lib/proxy-env.ts';
import { apiKeyProblem, baseUrlProblem, type NamedValue } from './setting-checks.ts';

/** The connection settings in effect, by name: whichever of the key and the base URL is set, and the environment for proxies and CAs. */
export interface ConnectionSettings {
  apiKey: NamedValue | undefined;
  baseUrl: NamedValue | undefined;
  caFile: NamedValue | undefined;
  env: Record<string, string | undefined>;
}

/**
 * Checks the settings every request depends on. Throws ConfigError (one line, exit 2) for the first
 * mistake; returns warnings for what agentx does not own. NODE_EXTRA_CA_CERTS is Node's, and
 * Node only warns about it and goes on without it: about a file it cannot read Node warns itself
 * at start, about one with no certificate in it it says nothing, so that is agentx's warning.
 */
export function checkConnectionSettings(s: ConnectionSettings): string[] {
  if (s.baseUrl !== undefined) {
    const problem = baseUrlProblem(s.baseUrl.value);
    if (problem !== undefined) throw new ConfigError(`${s.baseUrl.name}: ${problem}`);
  }
  if (s.apiKey !== undefined) {
    const problem = apiKeyProblem(s.apiKey.value);
    if (problem !== undefined) throw new ConfigError(`${s.apiKey.name}: ${problem}`);
  }
  try {
    checkProxyEnv(s.env);
    if (s.caFile !== undefined) readCaFile(s.caFile.value, s.caFile.name);
  } catch (err) {
    if (err instanceof ProxyConfigError || err instanceof CaFileError) throw new ConfigError(err.message);
    throw err;
  }
  return nodeExtraCaWarnings(s.env.NODE_EXTRA_CA_CERTS);
}

function nodeExtraCaWarnings(file: string | undefined): string[] {
  if (file === undefined || file === '') return [];
  try {
    readCaFile(file, 'NODE_EXTRA_CA_CERTS');
  } catch (err) {
    if (!(err instanceof CaFileError)) throw err;
    if (err.reason === 'not a PEM file') return [`${err.message}; Node ignores it, so no certificate from it is trusted`];
  }
  return [];
}
