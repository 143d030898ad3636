// The bundled Responses API emulator (dist/emulator.js) as a separate process, scripted over its
// HTTP control API (/__emulator/*) exactly as any other client would.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { LoggedRequest, Step } from '../emulator/wire.ts';

export interface EmulatorProcess {
  /** The Responses API base URL (`http://127.0.0.1:PORT/v1`). */
  readonly baseUrl: string;
  /** Queues scripted answers for the next requests. */
  enqueue(...steps: Step[]): Promise<void>;
  /** Forgets every stored response, as the service does when a chain expires. */
  forgetAll(): Promise<void>;
  /** Every request received so far. */
  requests(): Promise<LoggedRequest[]>;
  stop(): void;
}

/** Starts the emulator and resolves once it prints its URL (or rejects when it exits first). */
export async function startEmulatorProcess(script: string, args: string[], timeoutMs: number): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the emulator did not start within ${timeoutMs} ms${stderr ? `: ${stderr.trim()}` : ''}`));
    }, timeoutMs);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('EMULATOR_URL=')) return;
      clearTimeout(timer);
      resolve(line.slice('EMULATOR_URL='.length));
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited (${code ?? 'signal'})${stderr ? `: ${stderr.trim()}` : ''}`));
    });
  });
  return controlled(child, baseUrl);
}

function controlled(child: ChildProcess, baseUrl: string): EmulatorProcess {
  const root = baseUrl.replace(/\/v1$/, '');
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${root}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`emulator ${method} ${path}: HTTP ${res.status} ${text}`);
    const parsed: unknown = JSON.parse(text);
    return parsed;
  };
  return {
    baseUrl,
    enqueue: async (...steps) => {
      await call('POST', '/__emulator/enqueue', steps);
    },
    forgetAll: async () => {
      await call('POST', '/__emulator/forget', {});
    },
    requests: async () => {
      const log = await call('GET', '/__emulator/requests');
      return Array.isArray(log) ? log.filter(isLoggedRequest) : [];
    },
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}

function isLoggedRequest(v: unknown): v is LoggedRequest {
  return typeof v === 'object' && v !== null && 'seq' in v && 'status' in v && 'body' in v;
}
