// The built CLI on the WebSocket transport (AGENTX_TRANSPORT=websocket) against the emulator's
// WebSocket mode: a tool loop on one connection, a socket dropped mid-stream after a command ran
// (the retry resends the same output; the command does not run again), and a server that
// refuses the upgrade (HTTP for the session, remembered in servers.json).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../emulator/server.ts';
import { runCli, sandbox, type Sandbox } from './harness.ts';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(opts: EmulatorOptions = {}): Promise<{ emu: Emulator; box: Sandbox }> {
  emu = await startEmulator(opts);
  return { emu, box: sandbox(emu.baseUrl, { AGENTX_TRANSPORT: 'websocket' }) };
}

/** What servers.json (engine/server-capabilities.ts) remembers about this server's WebSocket mode. */
function rememberedWebSocket(box: Sandbox, baseUrl: string): unknown {
  const file = JSON.parse(readFileSync(join(box.home, '.local/state/agentx/servers.json'), 'utf8')) as { servers: Record<string, { websocket?: unknown }> };
  return file.servers[baseUrl]?.websocket;
}

describe('WebSocket transport (CLI)', () => {
  it('runs a turn with tool calls on one connection and exits when done', async () => {
    const { emu, box } = await start();
    emu.enqueue(
      { kind: 'shell', commands: ['echo one >> ledger.txt'] },
      { kind: 'shell', commands: ['echo two >> ledger.txt'] },
      { kind: 'text', text: 'all done' },
    );
    const r = await runCli(['go'], box);
    expect(r.stderr).not.toMatch(/agentx:|retrying|error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('all done\n');
    expect(readFileSync(join(box.cwd, 'ledger.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(emu.requests.map((q) => q.transport)).toEqual(['websocket', 'websocket', 'websocket']);
    expect(emu.webSocketConnections()).toBe(1);
    expect(rememberedWebSocket(box, emu.baseUrl)).toBe('yes');
  });

  it('a socket dropped mid-stream after a command ran: the retry resends its output, nothing runs twice', async () => {
    const { emu, box } = await start();
    emu.enqueue({ kind: 'shell', commands: ['echo once >> ledger.txt'] }, { kind: 'cut', afterText: 'PARTIAL-' }, { kind: 'text', text: 'recovered' });
    const r = await runCli(['go'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('recovered\n');
    expect(readFileSync(join(box.cwd, 'ledger.txt'), 'utf8')).toBe('once\n');
    const reqs = emu.requests;
    expect(reqs).toHaveLength(3);
    expect(reqs.every((q) => q.transport === 'websocket')).toBe(true);
    expect(reqs[1]?.completed).toBeUndefined();
    expect(JSON.stringify((reqs[2]?.body as { input: unknown }).input)).toBe(JSON.stringify((reqs[1]?.body as { input: unknown }).input));
    expect(emu.webSocketConnections()).toBe(2);
  });

  it('a refused upgrade falls back to HTTP and is remembered for the server', async () => {
    const { emu, box } = await start({ websocket: false });
    const r = await runCli(['hello'], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('You said: hello\n');
    expect(emu.requests.map((q) => q.transport)).toEqual(['http']);
    expect(rememberedWebSocket(box, emu.baseUrl)).toBe('no');
  });

  it('an HTTP session never loads the WebSocket client; a WebSocket one does', async () => {
    const { emu, box } = await start();
    const probe = join(box.home, 'probe.cjs');
    writeFileSync(
      probe,
      "process.once('exit', () => process.stderr.write(`WS_LOADED ${Object.keys(require.cache).some((k) => k.includes('/node_modules/ws/'))}\\n`));\n",
    );
    const withProbe = (transport: string): NodeJS.ProcessEnv => ({ ...box.env, AGENTX_TRANSPORT: transport, NODE_OPTIONS: `--require ${probe}` });
    const http = await runCli(['hello'], { ...box, env: withProbe('http') });
    expect(http.stderr).toContain('WS_LOADED false');
    const ws = await runCli(['hello'], { ...box, env: withProbe('websocket') });
    expect(ws.stderr).toContain('WS_LOADED true');
    expect(emu.requests.map((q) => q.transport)).toEqual(['http', 'websocket']);
  });

  it('AGENTX_HEADERS reach the server on the handshake and never the debug log', async () => {
    const { emu, box } = await start();
    const env = { ...box.env, AGENTX_HEADERS: 'X-Title=agentx,X-Gateway-Key=gw-secret-0123456789' };
    const r = await runCli(['--debug', 'hello'], { ...box, env });
    expect(r.code).toBe(0);
    expect(emu.requests[0]?.headers['x-gateway-key']).toBe('gw-secret-0123456789');
    expect(emu.requests[0]?.headers['x-title']).toBe('agentx');
    const logs = join(box.home, '.agentx-logs');
    const text = readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n');
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain('gw-secret-0123456789');
    expect(JSON.stringify(readdirSync(box.cwd).map((f) => (f.startsWith('.agentx') ? readFileSync(join(box.cwd, f), 'utf8') : '')))).not.toContain('gw-secret');
  });

  it('a bad AGENTX_TRANSPORT or AGENTX_HEADERS is one line at start', async () => {
    const { box } = await start();
    const bad = await runCli(['hello'], { ...box, env: { ...box.env, AGENTX_TRANSPORT: 'carrier-pigeon' } });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringContaining('AGENTX_TRANSPORT: expected auto, websocket, http, got "carrier-pigeon"')]);
    const headers = await runCli(['hello'], { ...box, env: { ...box.env, AGENTX_HEADERS: 'X-Key secret-value-123' } });
    expect(headers.code).not.toBe(0);
    expect(headers.stderr).toContain('AGENTX_HEADERS');
    expect(headers.stderr).not.toContain('secret-value-123');
  });
});
