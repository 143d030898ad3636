// The stdio transport for MCP servers, written for agentx instead of the SDK's so a server runs
// like a model command does (supervisor.ts): in its own process group under a tiny sh
// supervisor whose watcher kills the group when agentx's end of a lifeline socket closes —
// which the kernel does however agentx dies, kill -9 included. The SDK's transport spawns the
// server directly and could not give that guarantee.
//
// Framing is the MCP stdio one: one JSON-RPC message per line on stdin/stdout. stderr is kept
// (the last few KB) to explain a server that fails to start or dies.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { DEFAULT_KILL_GRACE_MS, signalProcessGroup } from '../process-group.ts';
import { SUPERVISOR_SCRIPT } from '../supervisor.ts';
import { blankInheritedDescriptors } from '../inherited-fds.ts';

// Same shape as the command supervisor (see the reasoning there), with two differences: the
// server keeps stdin (the MCP channel), and it is exec'd from an argv ("$@"), never through a
// shell command line, so no argument is ever re-parsed.

const STDERR_TAIL_BYTES = 4096;
/** Servers that exit on end of input do so at once; the others get TERM soon after. */
const STDIN_EOF_WAIT_MS = 300;
/** How long to wait for a dead server's stdout to reach its end before giving up on the rest. */
const DRAIN_MS = 500;
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface StdioLaunch {
  /** The server's argv, already wrapped (sandbox) if it is to be. */
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  graceMs?: number;
  maxMessageBytes?: number;
  /** Turns one line into a message; throws on anything that is not JSON-RPC (the SDK's parser). */
  parseMessage: (line: string) => JSONRPCMessage;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class SupervisedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private lifeline: Socket | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stderrChunks: Buffer[] = [];
  private stderrBytes = 0;
  private exited: Promise<void> | undefined;
  private exit: ExitInfo | undefined;
  private closeNotified = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly launch: StdioLaunch) {}

  /** The server's pid, which is also its process group id. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get exitInfo(): ExitInfo | undefined {
    return this.exit;
  }

  /** The end of what the server wrote to stderr, for messages about why it failed. */
  stderrTail(): string {
    return Buffer.concat(this.stderrChunks).toString('utf8');
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('transport already started'));
    const [command] = this.launch.argv;
    if (command === undefined) return Promise.reject(new Error('empty command'));
    const grace = String(Math.max(1, Math.ceil((this.launch.graceMs ?? DEFAULT_KILL_GRACE_MS) / 1000)));
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn('/bin/sh', ['-c', SUPERVISOR_SCRIPT, 'agentx-mcp-supervisor', grace, ...this.launch.argv], {
          cwd: this.launch.cwd,
          env: this.launch.env,
          // setsid: own session and group, no controlling terminal, so Ctrl-C reaches only agentx.
          detached: true,
          // Descriptors agentx inherited are /dev/null in the server (../inherited-fds.ts).
          stdio: blankInheritedDescriptors(['pipe', 'pipe', 'pipe', 'pipe']),
        });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      this.child = child;
      const lifeline = child.stdio[3];
      if (lifeline instanceof Socket) {
        // Must not keep agentx running: if agentx exits, closing the lifeline is the point.
        lifeline.unref();
        lifeline.on('error', () => undefined);
        this.lifeline = lifeline;
      }
      child.stdin?.on('error', (err) => this.onerror?.(err));
      child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
      child.stdout?.on('error', () => undefined);
      child.stderr?.on('data', (chunk: Buffer) => this.keepStderr(chunk));
      child.stderr?.on('error', () => undefined);
      this.exited = new Promise((done) => {
        child.once('exit', (code, signal) => {
          this.exit = { code, signal };
          done();
          // Leftovers in the group (and the watcher) go too; the server is gone either way.
          void this.stop();
        });
      });
      child.once('error', (err) => {
        reject(err);
        this.notifyClose();
      });
      child.once('spawn', () => resolve());
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || this.exit) return Promise.reject(new Error('MCP server is not running'));
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Stops the server and everything it started; resolves when its group has been killed. */
  async close(): Promise<void> {
    await this.stop();
  }

  private stop(): Promise<void> {
    this.stopping ??= this.stopGroup();
    return this.stopping;
  }

  /**
   * Closing stdin is how MCP asks a stdio server to exit; TERM to the group if it does not
   * within the grace time, then KILL to the group in any case, which also ends the watcher
   * (it kept the group id reserved until now, so the signal cannot reach a stranger's group).
   */
  private async stopGroup(): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (!child || pid === undefined) return this.notifyClose();
    const grace = this.launch.graceMs ?? DEFAULT_KILL_GRACE_MS;
    child.stdin?.end();
    if (!this.exit && !(await this.waitExit(Math.min(STDIN_EOF_WAIT_MS, grace)))) {
      signalProcessGroup(pid, 'SIGTERM');
      signalProcessGroup(pid, 'SIGCONT');
      await this.waitExit(grace);
    }
    signalProcessGroup(pid, 'SIGKILL');
    this.lifeline?.destroy();
    // The last message may still be in the pipe when 'exit' fires: read it before closing.
    await this.stdoutDrained(DRAIN_MS);
    child.stdout?.destroy();
    child.stderr?.destroy();
    this.notifyClose();
  }

  private stdoutDrained(ms: number): Promise<void> {
    const stdout = this.child?.stdout;
    if (!stdout || stdout.readableEnded || stdout.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      stdout.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private waitExit(ms: number): Promise<boolean> {
    if (this.exit || !this.exited) return Promise.resolve(true);
    const exited = this.exited;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private notifyClose(): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    this.onclose?.();
  }

  private keepStderr(chunk: Buffer): void {
    this.stderrChunks.push(chunk);
    this.stderrBytes += chunk.length;
    while (this.stderrBytes - (this.stderrChunks[0]?.length ?? 0) >= STDERR_TAIL_BYTES && this.stderrChunks.length > 1) {
      this.stderrBytes -= this.stderrChunks.shift()?.length ?? 0;
    }
  }

  private onStdout(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.pending.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      this.deliver(line);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > (this.launch.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES)) {
        this.pending = [];
        this.pendingBytes = 0;
        this.onerror?.(new Error('MCP server sent a message larger than the limit; closing it'));
        void this.stop();
      }
    }
  }

  private deliver(line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = this.launch.parseMessage(text);
    } catch (err) {
      // Servers that log to stdout are common; one bad line must not end the session.
      this.onerror?.(new Error(`MCP server wrote a line that is not JSON-RPC: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    this.onmessage?.(message);
  }
}
