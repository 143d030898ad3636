// --debug logs images by size only: a data URL or a base64 image result would otherwise put
// whole files into the log line by line.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDebugLog } from './debug-log.ts';

describe('debug log and images', () => {
  it('shortens data URLs and long base64 strings, keeps other long text', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentx-dbg-'));
    const d = createDebugLog(dir, []);
    const blob = 'A'.repeat(4000);
    const prose = 'word '.repeat(400);
    d.log('request', { image_url: `data:image/png;base64,${blob}`, result: blob, text: prose });
    const line = fs.readFileSync(d.path ?? '', 'utf8');
    expect(line).toContain('"image_url":"data:image/png;base64,[4000 base64 characters]"');
    expect(line).toContain('"result":"[4000 base64 characters]"');
    expect(line).toContain(prose);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
