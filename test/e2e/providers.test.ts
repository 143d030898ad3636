// The built CLI against the emulator's Azure mode: AGENTX_PROVIDER=azure (or an Azure host)
// sends the key as api-key with the api-version query, on HTTP and on WebSocket; without it the
// Bearer key is refused, as Azure refuses it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import { runCli, sandbox } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ azure: { apiVersion: '2025-04-01-preview' } });
});
afterAll(async () => {
  await emu.close();
});

describe('Azure-shaped requests from the CLI', () => {
  for (const transport of ['http', 'websocket']) {
    it(`AGENTX_PROVIDER=azure over ${transport}: api-key, no Authorization, the api-version`, async () => {
      const box = sandbox(emu.baseUrl, { AGENTX_PROVIDER: 'azure', AGENTX_AZURE_API_VERSION: '2025-04-01-preview', AGENTX_TRANSPORT: transport });
      const n = emu.requests.length;
      const r = await runCli(['run: echo hi'], box);
      expect(r.stderr).not.toMatch(/agentx:/);
      expect(r.code).toBe(0);
      const mine = emu.requests.slice(n);
      expect(mine.length).toBeGreaterThanOrEqual(2);
      for (const q of mine) {
        expect(q.transport).toBe(transport);
        expect(q.headers['api-key']).toBe('sk-test-e2e-secret-0123456789');
        expect(q.headers.authorization).toBeUndefined();
        expect(q.query['api-version']).toBe('2025-04-01-preview');
      }
    });
  }

  it('without the provider the Bearer key is refused: one line, exit 1', async () => {
    const r = await runCli(['hello'], sandbox(emu.baseUrl));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/authentication failed \(401\)/);
    expect(r.stderr).not.toContain('sk-test-e2e-secret');
  });
});
