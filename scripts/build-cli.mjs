// The CLI bundle (dist/agentx.cjs), shared by scripts/build.mjs and bench/oneshot-profile.mjs so
// the profile measures the code as it ships (there unminified, names kept).
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const REPO = join(import.meta.dirname, '..');

/**
 * The CLI as one CommonJS script, because Node 20 can cache compiled code only for scripts
 * (vm.Script cachedData), not for ES modules: bin/agentx.js compiles it with the cache, which
 * halves the time a one-shot spends loading code (BENCHMARKS.md, "Where a one-shot's time goes").
 * - One file: the lazily needed parts (Markdown, MCP, snapshots) are still evaluated only when
 *   used; their source is read but, with the cache, not compiled.
 * - `import()` becomes require(): a vm.Script has no ES module loader for it.
 * - The first line names the build (a hash of the code), so a cache is never used for other code:
 *   V8 itself checks only the source's length.
 * - "use strict" comes first: the sources are ES modules, strict by definition.
 * - `ws` (the WebSocket transport, model/ws-transport.ts) stays outside the bundle: a runtime
 *   dependency required from node_modules on the first WebSocket request, so an HTTP session
 *   neither loads nor even reads its code.
 */
export async function buildCli({ outFile, version, minify = true }) {
  const result = await build({
    bundle: true,
    platform: 'node',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
    format: 'cjs',
    entryPoints: [join(REPO, 'src/main.ts')],
    write: false,
    outfile: outFile,
    minify,
    keepNames: !minify,
    supported: { 'dynamic-import': false },
    // A native addon with prebuilt binaries: required at run time from node_modules, only when an
    // exec session first asks for a PTY (tools/exec/process.ts).
    external: ['ws', '@lydell/node-pty'],
    define: { __AGENTX_VERSION__: JSON.stringify(version), 'import.meta.url': '__agentxBundleUrl' },
    banner: { js: '"use strict";var __agentxBundleUrl=require("node:url").pathToFileURL(__filename).href;' },
  });
  const code = result.outputFiles[0].text;
  // ASCII only (esbuild escapes strings, not regular expression literals): V8 keeps an ASCII
  // source as a one-byte string, which bin/agentx.js reads about twice as fast as a two-byte one
  // (1.3 MB: ~6 ms against ~13 ms) in half the memory, on every start. Write \uXXXX in the source.
  const nonAscii = /[^\x00-\x7f]/.exec(code);
  if (nonAscii)
    throw new Error(
      `the CLI bundle must be ASCII: ${JSON.stringify(nonAscii[0])} near ${JSON.stringify(code.slice(Math.max(0, nonAscii.index - 60), nonAscii.index + 20))}`,
    );
  const id = createHash('sha256').update(code).digest('hex').slice(0, 20);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `/*agentx-build:${id}*/${code}`);
}
