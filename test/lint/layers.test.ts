// The dependency rule must bite: each wrong-direction import below is a lint error, and the
// allowed direction is not. Uses the same rule blocks as eslint.config.js (eslint.layers.js).
import { join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JS config module without type declarations
import { layerRules } from '../../eslint.layers.js';

const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...(layerRules as Linter.Config[])],
});

async function errorsFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? ''}: ${m.message}`);
}

describe('import direction (lint)', () => {
  const wrong: [string, string][] = [
    ['src/model/fixture.ts', "import { SessionStore } from '../store/session-store.ts';"],
    ['src/store/fixture.ts', "import { buildRequest } from '../model/request.ts';"],
    ['src/engine/fixture.ts', "import { Renderer } from '../ui/render.ts';"],
    ['src/engine/fixture.ts', "import { runRepl } from '../frontends/repl/repl.ts';"],
    ['src/tools/fixture.ts', "import { Engine } from '../engine/engine.ts';"],
    ['src/tools/patch/fixture.ts', "import { SessionStore } from '../../store/session-store.ts';"],
    ['src/tools/fixture.ts', "import { createOpenAIClient } from '../model/client.ts';"],
    ['src/sandbox/fixture.ts', "import { buildRequest } from '../model/request.ts';"],
    ['src/wire/fixture.ts', "import type { ModelClient } from '../model/types.ts';"],
    ['src/ui/fixture.ts', "import { runOneshot } from '../frontends/oneshot.ts';"],
  ];
  it.each(wrong)('rejects %s: %s', async (file, code) => {
    expect(await errorsFor(file, code)).toEqual([expect.stringMatching(/^no-restricted-imports: /)]);
  });

  it('rejects the terminal and process streams below the front-ends', async () => {
    expect(await errorsFor('src/engine/fixture.ts', "process.stdout.write('x');")).toEqual([expect.stringMatching(/^no-restricted-properties: /)]);
  });

  const allowed: [string, string][] = [
    ['src/frontends/fixture.ts', "import { Engine } from '../engine/engine.ts';"],
    ['src/engine/fixture.ts', "import { SessionStore } from '../store/session-store.ts';"],
    ['src/engine/fixture.ts', "import { ToolRegistry } from '../tools/registry.ts';"],
    ['src/model/fixture.ts', "import type { InputItem } from '../wire/items.ts';"],
    ['src/frontends/fixture.ts', "process.stdout.write('x');"],
  ];
  it.each(allowed)('allows %s: %s', async (file, code) => {
    expect(await errorsFor(file, code)).toEqual([]);
  });
});
