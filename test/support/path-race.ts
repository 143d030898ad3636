// A hostile neighbour for path-race tests: a separate process that keeps swapping a workspace
// directory for a symbolic link to a directory outside, as a sandboxed command could while agentx
// writes there (issue 23 §5). Each swap: rename the directory aside, put a symlink in its place,
// hold it for a moment, remove the link and rename the directory back. When stopped, the real
// directory is back in place.
import { spawn, type ChildProcess } from 'node:child_process';

const SWAPPER = `
const fs = require('node:fs');
const [dir, outside, holdArg, gapArg] = process.argv.slice(1);
const hold = Number(holdArg), gap = Number(gapArg);
const aside = dir + '.aside';
let swaps = 0, stop = false;
process.on('SIGTERM', () => { stop = true; });
const spin = (n) => { for (let i = 0; i < n; i++); };
function loop() {
  const end = Date.now() + 20;
  while (!stop && Date.now() < end) {
    try {
      fs.renameSync(dir, aside);
      fs.symlinkSync(outside, dir);
      spin(hold);
      fs.unlinkSync(dir);
      fs.renameSync(aside, dir);
      swaps++;
    } catch { try { if (fs.lstatSync(dir).isSymbolicLink()) fs.unlinkSync(dir); } catch {} try { fs.renameSync(aside, dir); } catch {} }
    spin(gap);
  }
  if (stop) { process.stdout.write(String(swaps)); process.exit(0); }
  setImmediate(loop);
}
process.stdout.write('ready\\n');
loop();
`;

export interface Swapper {
  /** Stops the neighbour; resolves with how many swaps it made. The real directory is back. */
  stop(): Promise<number>;
}

/** Starts swapping `dir` (an existing directory) with a symlink to `outside`; `timing` in busy-loop steps. */
export async function startSwapper(dir: string, outside: string, timing: { hold: number; gap: number } = { hold: 100_000, gap: 100_000 }): Promise<Swapper> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SWAPPER, dir, outside, String(timing.hold), String(timing.gap)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: string) => {
      out += d;
      if (out.startsWith('ready\n')) resolve();
    });
    child.once('exit', () => reject(new Error('the swapper exited before it started')));
  });
  return {
    stop: () =>
      new Promise<number>((resolve) => {
        child.once('exit', () => resolve(Number(out.slice('ready\n'.length)) || 0));
        child.kill('SIGTERM');
      }),
  };
}
