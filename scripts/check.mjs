// `npm test`'s first step: the type checks, the lint and the build at once. tsc and eslint are each
// single-threaded and together take ~90 s of CPU, so on a 2-core machine running them side by side
// (with the build, which is short) saves most of the shorter one's time. Each one's output is
// printed whole when it ends, so lines never interleave; any failure fails the step.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The type check is incremental: tsc keeps what it learned in a build-info file and checks again
// only what changed since (≈23 s of CPU cold, ≈9 s warm here), which leaves that CPU to eslint. The
// file lives in the temp dir, one per checkout (worktrees share node_modules, not their sources);
// tsc compares every file's content with what it recorded, so a stale file costs time, not errors.
const buildInfo = join(tmpdir(), `agentx-tsc-${createHash('sha256').update(process.cwd()).digest('hex').slice(0, 12)}.tsbuildinfo`);

const steps = [
  ['typecheck', ['npx', 'tsc', '--noEmit', '--incremental', '--tsBuildInfoFile', buildInfo]],
  // bin/agentx.js (strict) and bench/*.mjs (implicit any allowed) as JavaScript with JSDoc types.
  ['typecheck bin/ and bench/', ['npm', 'run', '--silent', 'typecheck:js']],
  ['lint', ['npm', 'run', '--silent', 'lint']],
  // The formatter's verdict only (Biome, biome.json; `npm run format` rewrites): ~1 s.
  ['format', ['npm', 'run', '--silent', 'format:check']],
  ['build', ['npm', 'run', '--silent', 'build']],
];

function run([name, [file, ...args]]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('error', (err) => out.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString('utf8');
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`${code === 0 ? 'ok' : 'FAILED'}: ${name} (${secs} s)\n${text}`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(steps.map(run));
if (results.includes(false)) process.exit(1);
