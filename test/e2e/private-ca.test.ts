// Private CAs with the built CLI (Node reads NODE_EXTRA_CA_CERTS at process start, so only a
// spawned process can show it): two CAs made here with openssl, the emulator behind TLS signed by
// CA A. NODE_EXTRA_CA_CERTS=A plus AGENTX_CA_FILE=B must still trust A (over HTTP and WebSocket),
// and AGENTX_CA_FILE read from the config file works like the environment variable.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';

let dir = '';
let emu: Emulator;
let tlsServer: tls.Server;
let baseUrl = '';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'agentx-private-ca-'));
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  for (const ca of ['a', 'b'])
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${ca}.key`, '-out', `${ca}.pem`, '-days', '1', '-subj', `/CN=agentx test CA ${ca}`);
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'a.pem', '-CAkey', 'a.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'ext.cnf');
  emu = await startEmulator();
  tlsServer = tls.createServer({ key: readFileSync(path.join(dir, 'server.key')), cert: readFileSync(path.join(dir, 'server.pem')) }, (socket) => {
    const up = net.connect(emu.port, '127.0.0.1');
    socket.pipe(up);
    up.pipe(socket);
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
  baseUrl = `https://localhost:${(tlsServer.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await emu.close();
  await new Promise((r) => tlsServer.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('private CAs (built CLI)', () => {
  for (const transport of ['http', 'websocket']) {
    it(`NODE_EXTRA_CA_CERTS still counts when AGENTX_CA_FILE names another CA (${transport})`, async () => {
      const box = sandbox(baseUrl, { NODE_EXTRA_CA_CERTS: path.join(dir, 'a.pem'), AGENTX_CA_FILE: path.join(dir, 'b.pem'), AGENTX_TRANSPORT: transport });
      const n = emu.requests.length;
      const r = await runCli(['say hi'], { ...box, timeoutMs: 15_000 });
      expect(r.stderr).not.toMatch(/agentx:|connection failed/);
      expect(r.code).toBe(0);
      expect(emu.requests.slice(n).map((q) => q.transport)).toEqual([transport]);
    });
  }

  it('AGENTX_CA_FILE from the config file is trusted; without it the certificate is refused', async () => {
    const box = sandbox(baseUrl);
    const config = path.join(box.home, 'agentx-config');
    writeFileSync(config, `AGENTX_CA_FILE=${path.join(dir, 'a.pem')}\n`);
    const trusted = await runCli(['say hi'], { ...box, env: { ...box.env, AGENTX_CONFIG: config }, timeoutMs: 15_000 });
    expect(trusted.stderr).not.toMatch(/agentx:|connection failed/);
    expect(trusted.code).toBe(0);
    writeFileSync(config, '');
    const refused = await runCli(['say hi'], { ...box, env: { ...box.env, AGENTX_CONFIG: config, AGENTX_MAX_RETRIES: '0' }, timeoutMs: 15_000 });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/certificate|SELF_SIGNED|UNABLE_TO/i);
  });
});
