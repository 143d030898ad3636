// `npm run demo`: a scripted agentx REPL session against the bundled Responses API emulator,
// printed as a transcript (no API key, no network). The demo is written in TypeScript
// (test/demo/) and bundled to dist/demo.js by the build that `npm install` runs.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const demo = fileURLToPath(new URL('../dist/demo.js', import.meta.url));
if (!existsSync(demo)) {
  process.stderr.write('demo: dist/demo.js is missing; run "npm install" (or "npm run build") first\n');
  process.exit(2);
}
await import(demo);
