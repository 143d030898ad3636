// A PEM file of CA certificates named by a setting (AGENTX_CA_FILE, NODE_EXTRA_CA_CERTS): read
// the same way at start (config/connection-checks.ts, so a mistake is one line before any request)
// and when the first https connection needs it (model/node-fetch.ts).
import { errorCode, NotRegularFileError, readRegularFileText } from './fsutil.ts';

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
 * A FIFO in its place is refused instead of blocking the start forever (readRegularFileText).
 */
export function readCaFile(path: string, variable: string): string {
  let pem: string;
  try {
    pem = readRegularFileText(path);
  } catch (err) {
    if (err instanceof NotRegularFileError) throw new CaFileError(`${variable}: ${path} is not a regular file`, 'unreadable');
    throw new CaFileError(`${variable}: cannot read ${path} (${errorCode(err) ?? 'unreadable'})`, 'unreadable');
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new CaFileError(`${variable}: ${path} is not a PEM file (no "-----BEGIN CERTIFICATE-----" in it)`, 'not a PEM file');
  return pem;
}
