// One exec session's process: the command under the supervisor (tools/supervisor.ts), with its
// stdin, stdout and stderr on pipes, or on a pseudo-terminal (tty: true) from @lydell/node-pty,
// loaded only when a PTY is first asked for (prebuilt binaries, kept out of the bundle).
//
// The supervisor's lifeline here is the session lifeline FIFO (lifeline.ts) instead of an
// inherited socket: node-pty cannot hand a child extra descriptors, and one mechanism for both
// kinds keeps "dies with agentx, even on kill -9" a single thing to get right.
import type { ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import { nodeChildProcess } from '../../lib/builtins.ts';
import { descriptorsWithoutCloexec } from '../../lib/descriptors.ts';
import { isExecutableFile } from '../../lib/fsutil.ts';
import { blankInheritedDescriptors } from '../inherited-fds.ts';
import { SUPERVISOR_SCRIPT } from '../supervisor.ts';
import { takeOutputPipe } from './pipes.ts';

export interface ExecProcess {
  /** The supervisor's pid: the process group (and, as setsid made it, session) of the command. */
  readonly pid: number;
  write(data: string): void;
  /** Releases agentx's ends (after exit, or when stopping). */
  release(): void;
}

export interface ExecSpawn {
  /** What the supervisor execs (the shell with the command, wrapped in bwrap when sandboxed). */
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  tty: boolean;
  /** The FIFO whose last writer is agentx (lifeline.ts). */
  lifeline: string;
  graceMs: number;
  /** Where the output pipes' FIFOs are made for a moment (pipes.ts); the system's by default. */
  tempDir?: string;
  /** A chunk of output: only valid during the call (the pipe reader reuses its memory). */
  onData(chunk: Buffer): void;
  onExit(code: number | null, signal: string | null): void;
}

/**
 * Opens the lifeline as fd 3 first (a missing FIFO means no guard: the command must not start),
 * then is the supervisor script, which reads fd 3 in its watcher and closes it for the command.
 */
const LIFELINE_SCRIPT = `exec 3<"$1" || exit 125\nshift\n${SUPERVISOR_SCRIPT}`;

/** Where the supervisor's watcher gets its descriptors (supervisor.ts): standard input first. */
const WATCHER_REDIRECTS = ') </dev/null';

/**
 * With a PTY the watcher also keeps a descriptor on the terminal (fd 6, a copy of its standard
 * output: sh gives a background job /dev/null as standard input before any redirection) for as
 * long as the session lives. Without it, a program that closes its terminal and runs on (a
 * daemon, `exec >/dev/null 2>&1`) closes the last descriptor of the slave: node-pty reads EIO,
 * closes the master, and the kernel hangs the program up (SIGHUP) — a running server reported as
 * "killed by SIGHUP" 20 ms after it detached.
 */
export const PTY_LIFELINE_SCRIPT = (() => {
  if (!LIFELINE_SCRIPT.includes(WATCHER_REDIRECTS))
    throw new Error('the supervisor script changed: its watcher redirects are not where exec sessions expect them');
  return LIFELINE_SCRIPT.replace(WATCHER_REDIRECTS, ') 6>&1 </dev/null');
})();

function supervisorArgs(s: ExecSpawn): string[] {
  const graceSeconds = String(Math.max(1, Math.ceil(s.graceMs / 1000)));
  return ['-c', s.tty ? PTY_LIFELINE_SCRIPT : LIFELINE_SCRIPT, 'agentx-exec', s.lifeline, graceSeconds, ...s.argv];
}

/** After the command exits, how long its pipes may still deliver output (a background job may hold them forever). */
const DRAIN_MS = 100;

/** One read's worth: the size of a Linux pipe, so a full pipe empties in one read. */
const READ_BYTES = 64 * 1024;

function spawnPipes(s: ExecSpawn): ExecProcess {
  // stdout and stderr share one pipe, read into one buffer reused for every read (pipes.ts):
  // the session copies what it keeps, so a flood allocates nothing per chunk.
  const pipe = takeOutputPipe(s.tempDir);
  let child: ChildProcess;
  try {
    child = nodeChildProcess().spawn('/bin/sh', supervisorArgs(s), {
      cwd: s.cwd,
      env: s.env,
      detached: true,
      stdio: blankInheritedDescriptors(['pipe', pipe.write, pipe.write]),
    });
  } catch (err) {
    closeSync(pipe.read);
    throw err;
  } finally {
    // The child has its copies; with ours closed, the read ends when the command's last writer does.
    closeSync(pipe.write);
  }
  child.stdin?.on('error', () => undefined);
  const readBuffer = Buffer.allocUnsafe(READ_BYTES);
  // `onread` is taken by the constructor too (Node ≥ 12), though the typings name it only for connect().
  const options = {
    fd: pipe.read,
    readable: true,
    writable: false,
    onread: {
      buffer: readBuffer,
      callback: (n: number, buf: Uint8Array): void => {
        s.onData(Buffer.from(buf.buffer, buf.byteOffset, n));
      },
    },
  };
  const output = new Socket(options);
  output.on('error', () => undefined);
  let exitStatus: { code: number | null; signal: string | null } | undefined;
  let outputOpen = true;
  let reported = false;
  const report = (): void => {
    if (reported || !exitStatus) return;
    reported = true;
    output.destroy();
    s.onExit(exitStatus.code, exitStatus.signal);
  };
  output.once('close', () => {
    outputOpen = false;
    report();
  });
  // Output still in the pipe arrives first: the end is reported when the pipe is closed, or
  // DRAIN_MS after the exit when something the command left behind holds it open.
  const finish = (code: number | null, signal: string | null): void => {
    if (exitStatus) return;
    exitStatus = { code, signal };
    if (!outputOpen) report();
    else setTimeout(report, DRAIN_MS).unref();
  };
  child.once('exit', (code, signal) => finish(code, signal));
  child.once('error', (err) => {
    s.onData(Buffer.from(`agentx: cannot start the command: ${err.message}\n`));
    finish(127, null);
  });
  if (child.pid === undefined) throw new Error('the command could not be started');
  return {
    pid: child.pid,
    write: (data) => writePipe(child, data),
    release: () => {
      child.stdin?.destroy();
      output.destroy();
    },
  };
}

/** Ctrl-D: on a terminal the line discipline turns it into end of input; on a pipe agentx must. */
const END_OF_INPUT = '\u0004';

/**
 * Writes to a pipe session's stdin. A Ctrl-D closes stdin, as it ends input on a terminal
 * (`cat`, `wc -c` and a REPL then see end of file); what came before it is written first, and
 * nothing can follow it (stdin is closed for good, as a pipe has no second end of file).
 */
function writePipe(child: ChildProcess, data: string): void {
  const stdin = child.stdin;
  if (!stdin || stdin.writableEnded) return;
  const end = data.indexOf(END_OF_INPUT);
  if (end < 0) {
    stdin.write(data);
    return;
  }
  if (end > 0) stdin.write(data.slice(0, end));
  stdin.end();
}

type PtyModule = typeof import('@lydell/node-pty');
let ptyModule: Promise<PtyModule> | undefined;

/** node-pty, loaded on first use: a session without a PTY (and every other run) never pays for it. */
function loadPty(): Promise<PtyModule> {
  ptyModule ??= import('@lydell/node-pty');
  return ptyModule;
}

const BASH_PATHS = ['/bin/bash', '/usr/bin/bash'];

/**
 * What node-pty starts: the supervisor's /bin/sh, or — while descriptors without close-on-exec
 * are open in agentx (another tty session's PTY master, lib/descriptors.ts) — bash first, to close
 * them: node-pty forks with everything such open, and sh (dash) cannot name a descriptor above 9.
 * `--posix`: bash then reads no BASH_ENV file before the sandbox. No bash: the session is refused
 * rather than started holding another session's terminal.
 */
function ptyLaunch(shArgs: string[]): [string, string[]] {
  const leaking = descriptorsWithoutCloexec();
  if (leaking.length === 0) return ['/bin/sh', shArgs];
  const bash = BASH_PATHS.find((p) => isExecutableFile(p));
  if (bash === undefined)
    throw new Error(
      "a tty session cannot start while another one is running without bash (to keep the other session's terminal from this one); use tty: false",
    );
  const close = `exec ${leaking.map((fd) => `${fd}>&-`).join(' ')}; exec /bin/sh "$@"`;
  return [bash, ['--posix', '-c', close, 'agentx-pty', ...shArgs]];
}

async function spawnPty(s: ExecSpawn): Promise<ExecProcess> {
  let pty: PtyModule;
  try {
    pty = await loadPty();
  } catch (err) {
    ptyModule = undefined;
    throw new Error(
      `tty: true needs the @lydell/node-pty package, which could not be loaded (${err instanceof Error ? err.message : String(err)}); use tty: false`,
    );
  }
  const [file, args] = ptyLaunch(supervisorArgs(s));
  const term = pty.spawn(file, args, {
    name: s.env.TERM !== undefined && s.env.TERM !== 'dumb' ? s.env.TERM : 'xterm-256color',
    cols: 120,
    rows: 40,
    cwd: s.cwd,
    env: s.env,
  });
  const data = term.onData((text) => s.onData(Buffer.from(text, 'utf8')));
  const exit = term.onExit(({ exitCode, signal }) => {
    if (signal === undefined || signal === 0) s.onExit(exitCode, null);
    else s.onExit(null, signalName(signal));
  });
  return {
    pid: term.pid,
    write: (text) => {
      term.write(text);
    },
    release: () => {
      // The group is already stopped (manager.ts); node-pty closes the master when the slave hangs up.
      data.dispose();
      exit.dispose();
    },
  };
}

function signalName(signal: number): string {
  const found = Object.entries(osConstants.signals).find(([, n]) => n === signal);
  return found ? found[0] : `signal ${signal}`;
}

/** Starts the process; throws with a one-line reason when it cannot start. */
export async function spawnExecProcess(s: ExecSpawn): Promise<ExecProcess> {
  return s.tty ? spawnPty(s) : spawnPipes(s);
}
