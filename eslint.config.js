// Lint rules that block whole bug classes (docs/ARCHITECTURE.md): floating promises, explicit any,
// and imports against the dependency direction (eslint.layers.js).
import tseslint from 'typescript-eslint';
import { layerRules } from './eslint.layers.js';

/** What Node gives every module without an import (for the plain-JavaScript files). */
const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'Buffer',
    'console',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'URL',
    'URLSearchParams',
    'TextEncoder',
    'TextDecoder',
    'AbortController',
    'AbortSignal',
    'fetch',
    'Response',
    'Request',
    'Headers',
    'structuredClone',
    'performance',
    'globalThis',
    'WebAssembly',
    'crypto',
    'atob',
    'btoa',
    'Event',
    'EventTarget',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'bench/.peer/', 'coverage/', 'vitest.config.ts', 'test/patches/'] },
  // The plain JavaScript (bin/, bench/, scripts/, test servers, fault runner) is linted without
  // type information: a syntax error or an undefined name there once broke `npm run fault` unseen.
  {
    files: ['**/*.mjs', '**/*.js'],
    extends: [tseslint.configs.recommended],
    languageOptions: { sourceType: 'module', globals: NODE_GLOBALS },
    rules: {
      'no-undef': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The launcher is CommonJS (bin/package.json): it must start before any ESM loader work.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', __filename: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  ...layerRules,
);
