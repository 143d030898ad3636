// Builds the CLI into one CommonJS bundle (dist/agentx.cjs, loaded by bin/agentx.js through a V8
// code cache), the emulator into dist/emulator.js (used by `npm run demo` and bench/) and the demo
// into dist/demo.js (neither is shipped). Runs on `npm install` via `prepare`.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { buildCli } from './build-cli.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
};

rmSync('dist', { recursive: true, force: true });
await Promise.all([
  buildCli({ outFile: 'dist/agentx.cjs', version }),
  // The emulator bundles ajv, which is CommonJS and calls require(): give the ESM output a real one.
  build({
    ...common,
    entryPoints: ['test/emulator/cli.ts'],
    outfile: 'dist/emulator.js',
    banner: { js: "import { createRequire as __emulatorRequire } from 'node:module'; const require = __emulatorRequire(import.meta.url);" },
  }),
  // `npm run demo` (scripts/demo.mjs): drives the CLI in a pty; node-pty is native, loaded from node_modules.
  build({ ...common, entryPoints: ['test/demo/main.ts'], outfile: 'dist/demo.js', external: ['@lydell/node-pty'] }),
]);

// The fast path in bin/agentx.js answers `--version` and `--help` from this small file, so that
// neither reads nor compiles the 1.2 MB bundle (startup goal: `--version` within 1.3x `node -e 0`).
// The texts come from the bundle itself, so they are exactly what the full path prints.
const fixed = (flag) => execFileSync(process.execPath, ['dist/agentx.cjs', flag], { encoding: 'utf8', env: { ...process.env, AGENTX_CODE_CACHE: 'off' } });
writeFileSync('dist/fixed-output.json', `${JSON.stringify({ version: fixed('--version'), help: fixed('--help') })}\n`);
