// Builds the CLI into one ESM bundle (dist/agentx.js), the emulator into dist/emulator.js
// (used by `npm run demo` and bench/) and the demo into dist/demo.js (neither is shipped). Runs on `npm install` via `prepare`.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

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
  // Code splitting keeps the entry chunk tiny: `--version`, `--help` and flag errors never parse
  // the SDK, the REPL or the session code, which load with dynamic import() when a mode needs them.
  build({
    ...common, entryPoints: { agentx: 'src/main.ts' }, outdir: 'dist', splitting: true, chunkNames: 'chunks/[name]-[hash]',
    minify: true, define: { __AGENTX_VERSION__: JSON.stringify(version) },
  }),
  // The emulator bundles ajv, which is CommonJS and calls require(): give the ESM output a real one.
  build({
    ...common, entryPoints: ['test/emulator/cli.ts'], outfile: 'dist/emulator.js',
    banner: { js: "import { createRequire as __emulatorRequire } from 'node:module'; const require = __emulatorRequire(import.meta.url);" },
  }),
  // `npm run demo` (scripts/demo.mjs): drives the CLI in a pty; node-pty is native, loaded from node_modules.
  build({ ...common, entryPoints: ['test/demo/main.ts'], outfile: 'dist/demo.js', external: ['@lydell/node-pty'] }),
]);
