// Shared by the MCP tests: the test servers' paths, spec builders and the marks file the
// servers write (pids, cancellations) so tests can check the server's side of things.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpServerSpec, StdioServerSpec } from '../../src/tools/mcp/spec.ts';

export const SERVERS_DIR = fileURLToPath(new URL('./servers/', import.meta.url));
export const STDIO_SERVER = join(SERVERS_DIR, 'stdio-server.mjs');
export const HTTP_SERVER = join(SERVERS_DIR, 'http-server.mjs');

/** The PNG the test servers' `photo` tool returns (servers/tools.mjs), base64. */
export const RED_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==';

export function stdioSpec(name: string, args: string[], extra: Partial<StdioServerSpec> = {}): StdioServerSpec {
  return { name, file: '/test/.mcp.json', scope: 'user', transport: 'stdio', command: process.execPath, args: [STDIO_SERVER, ...args], env: {}, ...extra };
}

export function httpSpec(name: string, url: string, extra: Partial<HttpServerSpec> = {}): HttpServerSpec {
  return { name, file: '/test/.mcp.json', scope: 'user', transport: 'http', url, headers: {}, ...extra };
}

export interface TempDir {
  path: string;
  cleanup(): void;
}

export function tempDir(prefix = 'agentx-mcp-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Lines the test servers appended to `<dir>/marks`. */
export function readMarks(dir: string): string[] {
  try {
    return readFileSync(join(dir, 'marks'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  } catch {
    return [];
  }
}

/** Polls until `check` returns a value (not undefined); throws with `what` on timeout. */
export async function waitUntil<T>(check: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
