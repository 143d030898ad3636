import { copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sealJson, sealLock, unsealJson, unsealLock, useStateKey } from './seal.ts';

const dir = mkdtempSync(join(tmpdir(), 'agentx-seal-'));
const file = join(dir, '.agentx_responseid');
const json = '{\n  "version": 1,\n  "response_id": "resp_1"\n}\n';

afterEach(() => useStateKey(undefined));

describe('seals', () => {
  it('a sealed file verifies for its own path and gives back the text as written', () => {
    useStateKey(join(dir, 'k1', 'state.key'));
    const sealed = sealJson(file, json);
    expect(sealed).toMatch(/^\{\n {2}"agentx_seal": "hmac-sha256:[0-9a-f]{64}",\n {2}"version": 1,/);
    expect(JSON.parse(sealed)).toMatchObject({ version: 1, response_id: 'resp_1' });
    expect(unsealJson(file, sealed)).toEqual({ status: 'sealed', text: json });
    const compact = '{"version":1,"response_id":"resp_1"}';
    expect(unsealJson(file, sealJson(file, compact))).toEqual({ status: 'sealed', text: compact });
  });

  it('a changed byte, another path, another key or a seal out of place is forged; no seal is unsigned', () => {
    useStateKey(join(dir, 'k2', 'state.key'));
    const sealed = sealJson(file, json);
    expect(unsealJson(file, sealed.replace('resp_1', 'resp_2')).status).toBe('forged');
    expect(unsealJson(join(dir, 'other', '.agentx_responseid'), sealed).status).toBe('forged');
    expect(unsealJson(file, json.replace('"version": 1', `"version": 1,\n  "agentx_seal": "hmac-sha256:${'0'.repeat(64)}"`)).status).toBe('forged');
    expect(unsealJson(file, json)).toEqual({ status: 'unsigned', text: json });
    useStateKey(join(dir, 'k3', 'state.key'));
    expect(unsealJson(file, sealed).status).toBe('forged');
  });

  it('the key is made once, 0600, and kept', () => {
    const key = join(dir, 'k4', 'state.key');
    useStateKey(key);
    const a = sealJson(file, json);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'k4')).mode & 0o777).toBe(0o700);
    useStateKey(key);
    expect(sealJson(file, json)).toBe(a);
    writeFileSync(key, 'not a key\n');
    useStateKey(key);
    expect(() => sealJson(file, json)).toThrow(/not an agentx state key/);
  });

  it('a copied key file seals the same way (the person moving their store keeps their sessions)', () => {
    const key = join(dir, 'k5', 'state.key');
    useStateKey(key);
    const sealed = sealJson(file, json);
    copyFileSync(key, join(dir, 'k6.key'));
    useStateKey(join(dir, 'k6.key'));
    expect(unsealJson(file, sealed).status).toBe('sealed');
    expect(readFileSync(key, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
  });

  it('locks: sealed text verifies; "1" written by a command does not', () => {
    useStateKey(join(dir, 'k7', 'state.key'));
    const lock = join(dir, '.agentx_responseid.lock');
    const text = sealLock(lock, '4242\nabcd\n');
    expect(unsealLock(lock, text)).toBe('4242\nabcd\n');
    expect(unsealLock(lock, '1\n')).toBeNull();
    expect(unsealLock(lock, text.replace('4242', '4243'))).toBeNull();
  });

  it("without a key nothing is sealed or checked (the store's own unit tests)", () => {
    expect(sealJson(file, json)).toBe(json);
    expect(unsealJson(file, json)).toEqual({ status: 'sealed', text: json });
    expect(unsealLock(file, '1\n')).toBe('1\n');
  });
});
