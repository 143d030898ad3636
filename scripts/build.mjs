// Builds the CLI into one ESM bundle (dist/agentx.js) and the emulator into dist/emulator.js
// (used by `npm run demo` and bench/, never shipped). Runs on `npm install` via `prepare`.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  // Some bundled CommonJS code calls require(); give ESM output a real one.
  banner: { js: "import { createRequire as __agentxRequire } from 'node:module'; const require = __agentxRequire(import.meta.url);" },
};

await Promise.all([
  build({ ...common, entryPoints: ['src/main.ts'], outfile: 'dist/agentx.js', minify: true, define: { __AGENTX_VERSION__: JSON.stringify(version) } }),
  build({ ...common, entryPoints: ['test/emulator/cli.ts'], outfile: 'dist/emulator.js' }),
]);
