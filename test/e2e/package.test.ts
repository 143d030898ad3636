// The published package: what `npm pack` puts in it, that a global install of the tarball gives a
// working `agentx` command (what README's install lines promise), that the name is ours rather than
// the unrelated `agentx` on npm, and that bin/agentx.js's fast path for --version/--help prints
// exactly what the bundle prints. Everything is bundled into dist/agentx.cjs except the two runtime
// dependencies that load lazily (ws for the WebSocket transport, @lydell/node-pty for exec sessions,
// a native addon with prebuilt binaries); the install takes them from npm's own cache, which
// `npm ci` has just filled, so it rarely needs the network.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { REPO, runCli, sandbox, type Sandbox } from './harness.ts';

interface PackResult {
  filename: string;
  files: { path: string }[];
}

const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  dependencies?: Record<string, string>;
};
let box: Sandbox;
let tarball: string;
let packed: string[];

beforeAll(() => {
  box = sandbox();
  const dest = join(box.home, 'pack');
  mkdirSync(dest);
  // --ignore-scripts: `prepare` would rebuild dist/ under the feet of the other e2e tests.
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...box.env, npm_config_cache: join(box.home, 'npm-cache') },
  });
  const [result] = JSON.parse(out) as PackResult[];
  if (!result) throw new Error(`npm pack printed no result: ${out}`);
  tarball = join(dest, 'pkg.tgz');
  renameSync(join(dest, result.filename), tarball);
  packed = result.files.map((f) => f.path).sort();
}, 60_000);

it('is named so that `npm install -g` and `npx` find this package, and the command stays `agentx`', () => {
  // `agentx` on npm is an unrelated package; README tells people to install this name.
  expect(pkg.name).toBe('agentx-cli');
  expect(pkg.bin).toEqual({ agentx: 'bin/agentx.js' });
  expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual(['@lydell/node-pty', 'ws']);
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  expect(readme).toContain(`npm install -g ${pkg.name}`);
  expect(readme).toContain(`npx -p ${pkg.name} agentx`);
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { name: string; packages: Record<string, { name?: string }> };
  expect([lock.name, lock.packages['']?.name]).toEqual([pkg.name, pkg.name]);
});

it('packs the launcher, the bundle, its fixed output, the README and the licence, and no sources, tests or benchmarks', () => {
  expect(packed).toEqual(['LICENSE', 'README.md', 'bin/agentx.js', 'bin/package.json', 'dist/agentx.cjs', 'dist/fixed-output.json', 'package.json']);
});

it('installs globally from the tarball without the network, and the installed agentx answers', () => {
  const prefix = join(box.home, 'prefix');
  // npm runs with the developer's own npm setup (cache, registry, CA), as a person's install
  // would; the runtime dependencies come from the cache `npm ci` has just filled.
  execFileSync('npm', ['install', '-g', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', prefix, tarball], {
    env: process.env,
    encoding: 'utf8',
  });
  const env = box.env;
  const agentx = join(prefix, 'bin', 'agentx');
  expect(execFileSync(agentx, ['--version'], { env, encoding: 'utf8' })).toMatch(/^agentx \d+\.\d+\.\d+/);
  // A run that loads the whole bundle (not the fast path): a usage error, one clear line.
  let stderr = '';
  try {
    execFileSync(agentx, ['--no-such-flag'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    stderr = String((err as { stderr?: string }).stderr);
  }
  expect(stderr).toBe('agentx: unknown option --no-such-flag (see agentx --help)\n');
}, 60_000);

it('the fast path prints what the bundle itself prints, for each spelling', async () => {
  for (const flag of ['--version', '-v', '--help', '-h']) {
    const fast = await runCli([flag], { cwd: box.cwd, env: box.env });
    const bundle = execFileSync(process.execPath, [join(REPO, 'dist/agentx.cjs'), flag], { env: box.env, encoding: 'utf8' });
    expect(fast.code).toBe(0);
    expect(fast.stdout).toBe(bundle);
  }
  // Other arguments beside it take the full path (and still print the version).
  const both = await runCli(['--version', '--quiet'], { cwd: box.cwd, env: box.env });
  expect(both.stdout).toMatch(/^agentx \d/);
});
