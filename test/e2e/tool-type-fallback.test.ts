// A compatible server that refuses the built-in tool types (issue 28 item 3): the first request
// offering `shell` and `apply_patch` is refused with a 400 naming the first (in OpenAI's error
// envelope, as Ollama and LiteLLM answer, or in vLLM's own top-level body); agentx says so in one
// line, resends the request with both tools as functions, and the turn works — the command runs
// and the patch is applied once. The refusal is remembered per base URL: the next start sends no
// built-in type.
// The same over the WebSocket transport, where the refusal is an `error` event: with the HTTP
// status the service puts in it, and without one (the field is optional; a server may send the
// error alone).
// Real CLI processes against the emulator over HTTP+SSE and WebSocket, real files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator/server.ts';
import type { LoggedRequest } from '../emulator/wire.ts';
import { runCli, sandbox } from './harness.ts';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

type Tool = { type: string; name?: string };
const toolsOf = (r: LoggedRequest): Tool[] => (r.body as { tools?: Tool[] }).tools ?? [];
const builtin = (r: LoggedRequest): string[] =>
  toolsOf(r)
    .map((t) => t.type)
    .filter((t) => t === 'shell' || t === 'apply_patch');
const functions = (r: LoggedRequest): string[] =>
  toolsOf(r)
    .filter((t) => t.type === 'function')
    .map((t) => t.name ?? '');
const PATCH = '*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n';

const CASES = [
  { transport: 'http', style: 'openai', errorStatus: true },
  { transport: 'http', style: 'vllm', errorStatus: true },
  { transport: 'websocket', style: 'openai', errorStatus: true },
  { transport: 'websocket', style: 'openai', errorStatus: false },
  { transport: 'websocket', style: 'vllm', errorStatus: false },
] as const;

describe.each(CASES)(
  'a server refusing the built-in shell and apply_patch types ($transport, $style error shape, status in WebSocket errors: $errorStatus)',
  ({ transport, style, errorStatus }) => {
    it('one refused request, then function tools: the turn works, and the next start sends no built-in type', async () => {
      emu = await startEmulator({ refuseToolTypes: { types: ['shell', 'apply_patch'], style }, websocketErrorStatus: errorStatus });
      const box = sandbox(emu.baseUrl, { AGENTX_TRANSPORT: transport });
      emu.enqueue({ kind: 'shell', commands: ['echo ran >> count.txt'] }, { kind: 'patch', patch: PATCH }, { kind: 'text', text: 'all done' });
      const r = await runCli(['do it'], box);
      expect(r.code).toBe(0);
      const said = r.stderr.split('\n').filter((l) => l.includes('built-in tool types'));
      expect(said).toEqual([
        '⟳ This server does not take built-in tool types (it refused shell): agentx offers shell and apply_patch as function tools from now on.',
      ]);
      expect(r.stdout).toContain('all done');
      expect(readFileSync(join(box.cwd, 'count.txt'), 'utf8')).toBe('ran\n');
      expect(readFileSync(join(box.cwd, 'notes.txt'), 'utf8')).toBe('hello\n');
      const first = emu.requests.filter((q) => q.path === '/v1/responses');
      // One refused request (it names shell, the first it meets); both types move at once.
      expect(first.map((q) => q.status)).toEqual([400, 200, 200, 200]);
      expect(first.map((q) => q.transport)).toEqual([transport, transport, transport, transport]);
      expect(builtin(first[0]!)).toEqual(['shell', 'apply_patch']);
      const answered = first.slice(1);
      for (const q of answered) {
        expect(builtin(q)).toEqual([]);
        expect(functions(q)).toEqual(expect.arrayContaining(['shell', 'apply_patch']));
      }

      // The next start remembers it (servers.json): no refused request at all.
      const seen = emu.requests.length;
      emu.enqueue({ kind: 'shell', commands: ['echo again >> count.txt'] }, { kind: 'text', text: 'done again' });
      const again = await runCli(['again'], box);
      expect(again.code).toBe(0);
      expect(again.stderr).not.toContain('built-in tool types');
      const second = emu.requests.slice(seen).filter((q) => q.path === '/v1/responses');
      expect(second.map((q) => q.status)).toEqual([200, 200]);
      expect(second.map((q) => q.transport)).toEqual([transport, transport]);
      for (const q of second) expect(builtin(q)).toEqual([]);
      expect(readFileSync(join(box.cwd, 'count.txt'), 'utf8')).toBe('ran\nagain\n');
      const servers = JSON.parse(readFileSync(join(box.home, '.local/state/agentx/servers.json'), 'utf8')) as {
        servers: Record<string, { refusedToolTypes?: string[] }>;
      };
      expect(servers.servers[emu.baseUrl.replace(/\/+$/, '')]?.refusedToolTypes).toEqual(['shell', 'apply_patch']);
    });
  },
);
