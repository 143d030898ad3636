// The dependency rule (docs/ARCHITECTURE.md, "Layers"), as ESLint config blocks so that lint
// fails on an import in the wrong direction. test/lint/layers.test.ts proves each block bites.
//
//   main.ts, frontends/, cli/, config/   front-ends: may import anything below
//   ui/                                 used by front-ends only
//   engine/                             session policy; imports model, tools, store, workspace, sandbox
//   model/  store/  tools/  workspace/  sandbox/
//   wire/  usage/  lib/                 leaves
//
// model and store never import each other; nothing below the front-ends touches the terminal
// or the process's streams, arguments or exit.

const FRONT_ENDS = ['**/frontends/**', '**/cli/**', '**/config/**', '**/ui/**', '**/main.ts'];
const ENGINE = ['**/engine/**'];

// Tests may cross layers (an engine test with a real tool, a model test with the emulator).
function restrict(files, patterns, message) {
  return {
    files,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
    },
  };
}

const TERMINAL_AND_PROCESS = {
  'no-restricted-properties': [
    'error',
    ...['stdout', 'stderr', 'stdin', 'exit', 'argv', 'chdir', 'exitCode'].map((property) => ({
      object: 'process',
      property,
      message: 'only front-ends (src/frontends, src/main.ts) touch the terminal and the process',
    })),
  ],
};

export const layerRules = [
  restrict(['src/ui/**/*.ts'], ['**/frontends/**', '**/main.ts'], 'ui/ is used by front-ends; it never imports them'),
  restrict(['src/engine/**/*.ts'], FRONT_ENDS, 'engine/ never imports a front-end, ui, cli or config'),
  restrict(
    ['src/model/**/*.ts'],
    [...FRONT_ENDS, ...ENGINE, '**/store/**', '**/tools/**', '**/workspace/**', '**/sandbox/**'],
    'model/ imports only wire/, usage/ and lib/',
  ),
  restrict(
    ['src/store/**/*.ts'],
    [...FRONT_ENDS, ...ENGINE, '**/model/**', '**/tools/**', '**/workspace/**', '**/sandbox/**'],
    'store/ imports only wire/, usage/ and lib/',
  ),
  restrict(
    ['src/tools/**/*.ts', 'src/workspace/**/*.ts', 'src/sandbox/**/*.ts'],
    [...FRONT_ENDS, ...ENGINE, '**/store/**', '**/model/**'],
    'tools/, workspace/ and sandbox/ never import the engine, the model client, the store or a front-end',
  ),
  restrict(
    ['src/wire/**/*.ts', 'src/usage/**/*.ts', 'src/lib/**/*.ts'],
    [...FRONT_ENDS, ...ENGINE, '**/model/**', '**/store/**', '**/tools/**', '**/workspace/**', '**/sandbox/**'],
    'wire/, usage/ and lib/ are leaves',
  ),
  {
    files: [
      'src/engine/**/*.ts',
      'src/model/**/*.ts',
      'src/store/**/*.ts',
      'src/tools/**/*.ts',
      'src/workspace/**/*.ts',
      'src/sandbox/**/*.ts',
      'src/wire/**/*.ts',
      'src/usage/**/*.ts',
      'src/lib/**/*.ts',
    ],
    // Tests may print (seeds) and read the process; their support modules live in test/support/.
    ignores: ['**/*.test.ts'],
    rules: TERMINAL_AND_PROCESS,
  },
];
