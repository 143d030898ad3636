// Reads blobs from the store through one long-lived `git cat-file --batch`, one request at a
// time. The restore writes the files itself (not git): if agentx is killed, nothing keeps writing
// into the workspace behind its back.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { gitEnv, isObjectId, type GitContext } from './git.ts';

interface Pending {
  resolve: (content: Buffer) => void;
  reject: (error: Error) => void;
}

export class BlobReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly queue: Pending[] = [];
  private failure: Error | null = null;
  /** The blob being received: bytes still expected (content + the closing newline) and what came so far. */
  private body: { need: number; parts: Buffer[] } | null = null;

  constructor(ctx: GitContext) {
    this.child = spawn(ctx.gitBin, ['cat-file', '--batch'], { cwd: ctx.workTree, env: gitEnv(ctx), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    this.child.stdin.on('error', () => undefined);
    this.child.on('error', (error) => this.fail(error));
    this.child.on('close', () => this.fail(new Error('git cat-file ended early')));
  }

  /** The content of blob `id`. */
  read(id: string): Promise<Buffer> {
    if (!isObjectId(id)) return Promise.reject(new Error('not an object id'));
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      this.child.stdin.write(`${id}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const p of this.queue.splice(0)) p.reject(this.failure);
  }

  /** Answers: "<id> blob <size>\n<content>\n", or "<id> missing\n". Bodies are collected in parts, copied once. */
  private drain(): void {
    for (;;) {
      const head = this.queue[0];
      if (head === undefined) return;
      if (this.body === null) {
        const eol = this.buffer.indexOf(0x0a);
        if (eol === -1) return;
        const header = this.buffer.subarray(0, eol).toString('utf8');
        this.buffer = this.buffer.subarray(eol + 1);
        const m = /^\S+ blob (\d+)$/.exec(header);
        if (m === null) {
          this.queue.shift();
          head.reject(new Error(`not in the snapshot store: ${header}`));
          continue;
        }
        this.body = { need: Number(m[1]) + 1, parts: [] };
      }
      const take = Math.min(this.body.need, this.buffer.length);
      if (take > 0) this.body.parts.push(this.buffer.subarray(0, take));
      this.body.need -= take;
      this.buffer = this.buffer.subarray(take);
      if (this.body.need > 0) return;
      const content = Buffer.concat(this.body.parts);
      this.body = null;
      this.queue.shift();
      head.resolve(content.subarray(0, content.length - 1));
    }
  }
}
