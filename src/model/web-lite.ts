// Just enough of the web's Headers and Response for the OpenAI SDK over node:http, so a one-shot
// never loads Node's bundled undici.
//
// Why: in Node 20 `Headers`, `Response` and `FormData` are lazy globals backed by undici, and
// the first touch compiles and runs all of it (~1 MB of JavaScript). The SDK touches them on
// every request (`new Headers()` in buildHeaders, `body instanceof FormData` in buildBody), and
// the old node-fetch.ts built a `Response` around a web ReadableStream: in --cpu-prof that was
// ~38 ms of CPU for undici plus ~15 ms for the web-streams modules, a third of a one-shot's own
// CPU (BENCHMARKS.md, "Where a one-shot's time goes"). The SDK only needs the parts below: it reads a response's
// status, ok, url, headers (get), json()/text() for errors, and iterates `body` with
// `for await`, which a Node stream supports directly (its ReadableStreamToAsyncIterable passes
// async iterables through). Nothing else in agentx uses these globals.

type HeaderPairs = Iterable<readonly [string, string]> | Record<string, string | readonly string[] | undefined>;

function isPairIterable(init: unknown): init is Iterable<readonly [string, string]> {
  return typeof init === 'object' && init !== null && Symbol.iterator in init;
}

/** The Headers API (case-insensitive, comma-joined repeats) on a Map; what buildHeaders and error parsing use. */
export class LiteHeaders {
  private readonly map = new Map<string, string>();

  constructor(init?: HeaderPairs | LiteHeaders | null) {
    if (init === undefined || init === null) return;
    if (init instanceof LiteHeaders || isPairIterable(init)) {
      for (const [name, value] of init) this.append(name, value);
      return;
    }
    for (const [name, value] of Object.entries(init)) {
      if (value === undefined) continue;
      for (const v of typeof value === 'string' ? [value] : value) this.append(name, v);
    }
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const old = this.map.get(key);
    this.map.set(key, old === undefined ? String(value) : `${old}, ${value}`);
  }

  set(name: string, value: string): void {
    this.map.set(name.toLowerCase(), String(value));
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }

  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }

  forEach(fn: (value: string, name: string, headers: LiteHeaders) => void): void {
    for (const [name, value] of this.entries()) fn(value, name, this);
  }

  /** Sorted by name, as the web's Headers iterates. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.map.keys()].sort()) yield [name, this.map.get(name) ?? ''];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** Only ever the target of `instanceof` checks in the SDK; agentx sends no multipart bodies. */
export class LiteFormData {}

/** A response whose body is the Node stream itself (async-iterable bytes). */
export class LiteResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;

  constructor(
    readonly body: AsyncIterable<Uint8Array> | null,
    readonly status: number,
    readonly statusText: string,
    readonly headers: LiteHeaders,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status <= 299;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    const chunks: Uint8Array[] = [];
    if (this.body !== null) for await (const chunk of this.body) chunks.push(chunk);
    const bytes = Buffer.concat(chunks);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.arrayBuffer());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

/**
 * Puts LiteHeaders and LiteFormData in place of the globals while they are still Node's lazy,
 * not yet loaded getters (once something has loaded undici, the real ones stay). Returns
 * whether it did. Called before the SDK is imported.
 */
export function installLiteWebGlobals(target: object = globalThis): boolean {
  const lazy = (name: string): boolean => Object.getOwnPropertyDescriptor(target, name)?.get !== undefined;
  if (!lazy('Headers') || !lazy('FormData')) return false;
  Object.defineProperty(target, 'Headers', { value: LiteHeaders, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(target, 'FormData', { value: LiteFormData, writable: true, configurable: true, enumerable: false });
  return true;
}
