// A PEM file of CA certificates named by a setting (AGENTX_CA_FILE, NODE_EXTRA_CA_CERTS): read
// the same way at start (config/connection-checks.ts, so a mistake is one line before any request)
// and when the first https connection needs it (model/node-fetch.ts).
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { errorCode } from './fsutil.ts';

export class CaFileError extends Error {
  constructor(
    message: string,
    /** Why: Node itself warns at start about an unreadable NODE_EXTRA_CA_CERTS, but says nothing about one with no certificate in it. */
    readonly reason: 'unreadable' | 'not a PEM file',
  ) {
    super(message);
  }
}

/**
 * The file's text; one line naming `variable` and the path when it cannot serve as a CA file.
 * O_NONBLOCK + fstat: a FIFO in its place is refused instead of blocking the start forever.
 */
export function readCaFile(path: string, variable: string): string {
  let fd: number | undefined;
  let pem: string;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    if (!fstatSync(fd).isFile()) throw new CaFileError(`${variable}: ${path} is not a regular file`, 'unreadable');
    pem = readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof CaFileError) throw err;
    throw new CaFileError(`${variable}: cannot read ${path} (${errorCode(err) ?? 'unreadable'})`, 'unreadable');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new CaFileError(`${variable}: ${path} is not a PEM file (no "-----BEGIN CERTIFICATE-----" in it)`, 'not a PEM file');
  return pem;
}
