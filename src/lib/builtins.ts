// Builtins loaded on first use. An ES `import` of a builtin evaluates every one of its exports at
// startup: node:crypto's then pulls in WebCrypto and web streams, node:child_process the whole
// child-process stack, node:fs its stream classes, on every run, although a plain one-shot needs
// none of that (bench/, "Where a one-shot's time goes"). require() returns the module object with
// Node's lazy getters still lazy.
import type * as ChildProcess from 'node:child_process';
import type * as Crypto from 'node:crypto';
import type * as Fs from 'node:fs';
import { createRequire } from 'node:module';

const requireBuiltin = createRequire(import.meta.url);

export function nodeCrypto(): typeof Crypto {
  // require() returns any: the module's declared type is restored.
  return requireBuiltin('node:crypto') as typeof Crypto;
}

export function nodeChildProcess(): typeof ChildProcess {
  // require() returns any: the module's declared type is restored.
  return requireBuiltin('node:child_process') as typeof ChildProcess;
}

/** node:fs for main.ts, which writes --version and --help before anything else is loaded. */
export function nodeFs(): typeof Fs {
  // require() returns any: the module's declared type is restored.
  return requireBuiltin('node:fs') as typeof Fs;
}
