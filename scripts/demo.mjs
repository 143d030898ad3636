// `npm run demo`: a real agentx session against the bundled Responses emulator (no API key,
// no network). Starts dist/emulator.js on a free port, then runs two one-shots in a temp project.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const emulator = spawn(process.execPath, [join(repo, 'dist/emulator.js'), '--latency', '150'], { stdio: ['ignore', 'pipe', 'inherit'] });
const baseUrl = await new Promise((resolve, reject) => {
  const rl = createInterface({ input: emulator.stdout });
  rl.on('line', (line) => { if (line.startsWith('EMULATOR_URL=')) resolve(line.slice('EMULATOR_URL='.length)); });
  emulator.on('exit', (code) => reject(new Error(`emulator exited (${code})`)));
});

const project = mkdtempSync(join(tmpdir(), 'agentx-demo-'));
const env = { ...process.env, AGENTX_BASE_URL: baseUrl, AGENTX_API_KEY: 'demo-key', AGENTX_CONFIG: join(project, '.agentx-config') };

function agentx(message) {
  process.stdout.write(`\n\x1b[1m$ agentx "${message}"\x1b[0m\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repo, 'bin/agentx.js'), message], { cwd: project, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', resolve);
  });
}

try {
  console.log(`agentx demo — emulator at ${baseUrl}, project ${project}`);
  await agentx('Hello! What can you do?');
  await agentx('run: echo "hello from the demo" > demo.txt && ls -l && cat demo.txt');
} finally {
  emulator.kill('SIGTERM');
  rmSync(project, { recursive: true, force: true });
}
