// Proxy credentials never land on disk: a one-shot with --debug (the debug log writes request
// bodies and events) through a forward proxy whose URL holds a password, then every file under
// HOME (config, private state store, logs) and the project directory is searched for it. The
// same through a SOCKS5 proxy (username/password, RFC 1929).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { startForwardProxy, type ForwardProxy } from '../mcp/fixtures/forward-proxy.ts';
import { startSocks5Server } from '../support/socks5-server.ts';
import { runCli, sandbox } from './harness.ts';

const PASSWORD = 'pr0xy-pa55-9f3c1e';

let emu: Emulator;
let proxy: ForwardProxy;
beforeAll(async () => {
  emu = await startEmulator();
  proxy = await startForwardProxy();
});
afterAll(async () => {
  await proxy.close();
  await emu.close();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('proxy credentials', () => {
  it('a --debug one-shot through a proxy with a password leaves the password in no file', async () => {
    const box = sandbox(emu.baseUrl, { HTTP_PROXY: proxy.url.replace('http://', `http://alice:${PASSWORD}@`), AGENTX_TRANSPORT: 'http' });
    const r = await runCli(['--debug', 'run: echo hi'], { ...box, timeoutMs: 15_000 });
    expect(r.code).toBe(0);
    // It did go through the proxy, with the credentials.
    expect(proxy.forwarded.length).toBeGreaterThanOrEqual(2);
    expect(proxy.auth).toContain(`Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`);
    const files = [...filesUnder(box.home), ...filesUnder(box.cwd)];
    // The debug log was written (so the search covers it).
    expect(files.some((f) => /log/i.test(f))).toBe(true);
    const b64 = Buffer.from(`alice:${PASSWORD}`).toString('base64');
    for (const f of files) {
      const text = readFileSync(f, 'latin1');
      expect(text.includes(PASSWORD) || text.includes(b64), f).toBe(false);
    }
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it.each(['http', 'websocket'])('a --debug one-shot over %s through a SOCKS5 proxy with a password leaves it in no file', async (transport) => {
    const socks = await startSocks5Server({ credentials: { username: 'alice', password: PASSWORD } });
    try {
      const box = sandbox(emu.baseUrl, { ALL_PROXY: socks.url.replace('//', `//alice:${PASSWORD}@`), AGENTX_TRANSPORT: transport });
      const r = await runCli(['--debug', 'run: echo hi'], { ...box, timeoutMs: 15_000 });
      expect(r.code).toBe(0);
      expect(socks.usernames.length).toBeGreaterThanOrEqual(1);
      const files = [...filesUnder(box.home), ...filesUnder(box.cwd)];
      expect(files.some((f) => /log/i.test(f))).toBe(true);
      for (const f of files) expect(readFileSync(f, 'latin1').includes(PASSWORD), f).toBe(false);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    } finally {
      await socks.close();
    }
  });
});
