// Bundles cli.ts the way scripts/build.mjs does and runs it with plain node: one URL line on
// stdout, a working server behind it, a clean exit on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, expect, it } from 'vitest';

const dir = await mkdtemp(join(tmpdir(), 'agentx-emulator-'));
afterAll(async () => rm(dir, { recursive: true, force: true }));

it('the bundled CLI prints EMULATOR_URL, serves requests and exits on SIGTERM', async () => {
  const outfile = join(dir, 'emulator.js');
  await build({
    entryPoints: [new URL('./cli.ts', import.meta.url).pathname],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
  });
  const child = spawn(
    process.execPath,
    [outfile, '--port', '0', '--latency', '1', '--context-window', '2000', '--overflow', 'failed', '--no-compact-endpoint'],
    { cwd: dir },
  );
  let stdout = '';
  child.stdout.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const match = /^EMULATOR_URL=(\S+)\n/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`emulator exited early (${code})`)));
  });
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const res = await fetch(`${url}/responses`, {
    method: 'POST',
    headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-5', input: 'ping' }),
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { output: unknown[] }).output).toHaveLength(1);
  // The context flags: a 2,000-token window that fails in-stream form, no compact endpoint.
  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(`${url}${path}`, { method: 'POST', headers: { authorization: 'Bearer x', 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const over = await post('/responses', { model: 'gpt-5', input: 'x'.repeat(9000) });
  expect(await over.json()).toMatchObject({ status: 'failed', error: { code: 'context_length_exceeded' } });
  expect((await post('/responses/compact', { model: 'gpt-5', input: 'x' })).status).toBe(404);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(stdout).toBe(`EMULATOR_URL=${url}\n`);
});
