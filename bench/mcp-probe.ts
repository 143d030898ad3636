// Measured inside one process by bench/mcp.mjs (which bundles this file with esbuild, as the CLI
// is bundled): loading the MCP SDK, starting one stdio server (spawn, initialize, tools/list),
// and the round trip of a trivial tool call. Prints one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMcpConfig } from '../src/tools/mcp/config.ts';
import { McpManager } from '../src/tools/mcp/manager.ts';
import type { SdkModule } from '../src/tools/mcp/connection.ts';

const [serverScript = '', callsArg = '200'] = process.argv.slice(2);
const CALLS = Number(callsArg);

// What every session pays to learn that no server is configured: two failed opens.
const empty = mkdtempSync(join(tmpdir(), 'agentx-mcp-probe-'));
const cfg0 = performance.now();
const config = await loadMcpConfig({ projectDir: empty, env: { HOME: empty } });
const noConfigMs = performance.now() - cfg0;
rmSync(empty, { recursive: true, force: true });
if (config.servers().length !== 0) throw new Error('expected no servers');

let sdkMs = 0;
const loadSdk = async (): Promise<SdkModule> => {
  const t0 = performance.now();
  const sdk = await import('@modelcontextprotocol/client');
  sdkMs = performance.now() - t0;
  return sdk;
};

const spec = { name: 'bench', file: '/bench/mcp.json', scope: 'user', transport: 'stdio', command: process.execPath, args: [serverScript, 'serve', 'bench', 'echo'], env: {} } as const;
const t0 = performance.now();
const manager = await McpManager.start({ specs: [{ ...spec, args: [...spec.args] }], env: process.env, projectDir: process.cwd(), loadSdk });
const startMs = performance.now() - t0 - sdkMs;
if (manager.servers()[0]?.state !== 'ready') throw new Error(`server did not start: ${manager.servers()[0]?.error ?? '?'}`);

const record = manager.describeCall('mcp__bench__echo', '{"text":"x"}');
if (!record) throw new Error('no echo tool');
const callMs: number[] = [];
for (let i = 0; i < CALLS; i++) {
  const c0 = performance.now();
  const outcome = await manager.call(record);
  callMs.push(performance.now() - c0);
  if (outcome.output !== 'x') throw new Error(`unexpected output ${outcome.output}`);
}
const c0 = performance.now();
await manager.close();
const closeMs = performance.now() - c0;
process.stdout.write(`${JSON.stringify({ noConfigMs, sdkMs, startMs, callMs, closeMs })}\n`);
