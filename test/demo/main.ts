// `npm run demo` (bundled to dist/demo.js): a scripted agentx session against the bundled
// Responses API emulator, printed as a transcript. No API key, no network: the emulator runs on
// 127.0.0.1 and is scripted over its HTTP control API.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulatorProcess, type EmulatorProcess } from './emulator-process.ts';
import { DemoStepError, STEP_TIMEOUT_MS } from './session.ts';
import { SECTIONS, seedProject, type DemoWorld } from './story.ts';
import { createTranscript } from './transcript.ts';

/** The emulator's delay before the first token: enough to see the spinner, short enough to be quick. */
const LATENCY_MS = '100';

interface Paths {
  repo: string;
  cli: string;
  emulator: string;
}

function paths(): Paths {
  // dist/demo.js → the repository root.
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  return { repo, cli: join(repo, 'bin/agentx.js'), emulator: join(repo, 'dist/emulator.js') };
}

/** Only what agentx needs: nothing from the person's shell (keys, base URLs, models) leaks in. */
function demoEnv(home: string, baseUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    SHELL: '/bin/sh',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    AGENTX_BASE_URL: baseUrl,
    AGENTX_API_KEY: 'demo-key-not-a-secret',
    // The sandbox is Linux-only: elsewhere the demo's commands run unsandboxed (with a warning).
    AGENTX_SANDBOX: 'off-if-unavailable',
    AGENTX_RETRY_BASE_MS: '50',
    // The emulator plays a server that stores responses; its forgetting in "Recovery from an
    // expired chain" is an expiry, not a server that stores nothing (README "The conversation log").
    AGENTX_STORE: 'on',
  };
}

function oneShot(cli: string, cwd: string, env: NodeJS.ProcessEnv, logFile: string, message: string): Promise<{ code: number | null; output: string }> {
  // One file for stdout and stderr keeps the order in which agentx wrote them.
  const fd = openSync(logFile, 'w');
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cli, message], { cwd, env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the one-shot did not finish within ${STEP_TIMEOUT_MS / 1000} s`));
    }, STEP_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output: readFileSync(logFile, 'utf8') });
    });
  });
}

async function main(): Promise<number> {
  const started = Date.now();
  const p = paths();
  const transcript = createTranscript(process.stdout, process.env);
  for (const file of [p.cli, p.emulator, join(p.repo, 'dist/agentx.cjs')]) {
    if (!existsSync(file)) {
      process.stderr.write(`demo: ${file} is missing; run "npm install" (or "npm run build") first\n`);
      return 2;
    }
  }
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentx-demo-')));
  const home = join(root, 'home');
  const project = join(home, 'project');
  mkdirSync(project, { recursive: true });
  seedProject(project);
  let emulator: EmulatorProcess | undefined;
  let world: DemoWorld | undefined;
  const progress = { section: 'start' };
  const cleanUp = (): void => {
    world?.repl?.kill('SIGKILL');
    emulator?.stop();
    rmSync(root, { recursive: true, force: true });
  };
  process.once('SIGINT', () => {
    cleanUp();
    process.exit(130);
  });
  try {
    emulator = await startEmulatorProcess(p.emulator, ['--latency', LATENCY_MS], STEP_TIMEOUT_MS);
    const env = demoEnv(home, emulator.baseUrl);
    world = {
      cli: p.cli,
      project,
      env,
      emulator,
      transcript,
      progress,
      runId: randomBytes(3).toString('hex'),
      oneShot: (message) => oneShot(p.cli, project, env, join(root, 'one-shot.log'), message),
    };
    transcript.plain(transcript.colour ? '\x1b[1magentx demo\x1b[0m' : 'agentx demo');
    transcript.note(`a scripted session against the bundled Responses API emulator at ${emulator.baseUrl}`);
    transcript.note('no API key and no network: the emulator is the model; the commands really run');
    transcript.note(`project: ~/project = ${project} (greet.sh, package.sh)`);
    for (const [i, section] of SECTIONS.entries()) {
      progress.section = section.title;
      transcript.header(i + 1, SECTIONS.length, section.title, section.blurb);
      await section.run(world);
    }
    transcript.plain('');
    transcript.note(`demo finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } catch (err) {
    world?.repl?.flush();
    const message = err instanceof DemoStepError ? err.message : `in "${progress.section}": ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
    process.stderr.write(`\ndemo failed ${message}\n`);
    return 1;
  } finally {
    cleanUp();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
