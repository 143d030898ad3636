// Runs the emulator as a process (bundled to dist/emulator.js): prints exactly one line,
// EMULATOR_URL=http://127.0.0.1:PORT/v1, once listening; stops cleanly on SIGTERM/SIGINT.
import { startEmulator } from './server.ts';
import type { EmulatorOptions } from './server.ts';
import { OVERFLOW_FORMS } from './context.ts';
import type { ContextOptions } from './context.ts';

const USAGE =
  'usage: emulator [--port N] [--host H] [--latency MS] [--no-validate] [--no-auth] [--stateless]\n' +
  '                [--context-window TOKENS] [--overflow http|failed|error|error_nested] [--no-context-management] [--no-compact-endpoint]\n' +
  '                [--no-websocket] [--websocket-limit MS] [--websocket-errors-without-status] [--azure [API_VERSION]]\n' +
  '                [--refuse-tool-types shell,apply_patch [--refusal-style openai|vllm]]';

function parseArgs(argv: string[]): EmulatorOptions {
  const opts: EmulatorOptions = {};
  const context: ContextOptions = {};
  const number = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a non-negative integer\n${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--port') opts.port = number(arg, argv[++i]);
    else if (arg === '--latency') opts.latencyMs = number(arg, argv[++i]);
    else if (arg === '--host') opts.host = argv[++i];
    else if (arg === '--no-validate') opts.validate = false;
    else if (arg === '--no-auth') opts.requireAuth = false;
    else if (arg === '--stateless') opts.stateless = true;
    else if (arg === '--no-websocket') opts.websocket = false;
    else if (arg === '--websocket-errors-without-status') opts.websocketErrorStatus = false;
    else if (arg === '--refuse-tool-types') opts.refuseToolTypes = { ...opts.refuseToolTypes, types: (argv[++i] ?? '').split(',').filter((t) => t !== '') };
    else if (arg === '--refusal-style') {
      const style = argv[++i];
      if (style !== 'openai' && style !== 'vllm') throw new Error(`--refusal-style needs openai or vllm\n${USAGE}`);
      opts.refuseToolTypes = { types: opts.refuseToolTypes?.types ?? [], style };
    } else if (arg === '--websocket-limit') opts.websocketLimitMs = number(arg, argv[++i]);
    else if (arg === '--azure') {
      // An optional version: the next argument unless it is another flag.
      const next = argv[i + 1];
      opts.azure = next !== undefined && !next.startsWith('--') ? { apiVersion: argv[++i] } : {};
    } else if (arg === '--context-window') context.windowTokens = number(arg, argv[++i]) || null;
    else if (arg === '--overflow') {
      const form = OVERFLOW_FORMS.find((f) => f === argv[i + 1]);
      if (!form) throw new Error(`--overflow needs one of ${OVERFLOW_FORMS.join(', ')}\n${USAGE}`);
      context.overflowForm = form;
      i++;
    } else if (arg === '--no-context-management') context.contextManagement = false;
    else if (arg === '--no-compact-endpoint') context.compactEndpoint = false;
    else throw new Error(`unknown argument: ${arg}\n${USAGE}`);
  }
  if (Object.keys(context).length > 0) opts.context = context;
  return opts;
}

async function main(): Promise<void> {
  const emulator = await startEmulator(parseArgs(process.argv.slice(2)));
  process.stdout.write(`EMULATOR_URL=${emulator.baseUrl}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`emulator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
