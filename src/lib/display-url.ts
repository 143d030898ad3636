// URLs as they may be shown (lists, `mcp get`, error lines): never the user name and password,
// and no query or fragment values, which is where services put API keys (`?api_key=…`) and
// tokens (`#access_token=…`). Textual, not through `new URL`: the text is shown as its author
// wrote it (`${VAR}` references and case kept), and a URL that does not parse is still cut.
// The proxy's counterpart, which shows only scheme and host, is displayProxy (proxy-env.ts).

/** scheme://, userinfo@, host and path, ?query, #fragment. Userinfo ends at the last `@` before the path, as URL parsers read it. */
const PARTS = /^([a-z][a-z0-9+.-]*:\/\/)?(?:[^/?#]*@)?([^?#]*)(\?[^#]*)?(#.*)?$/is;

/** A value that is only a `${VAR}` reference names a variable, not a secret: it stays readable. */
const REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

const HIDDEN = '***';

function displayQuery(query: string): string {
  const params = query
    .slice(1)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=');
      // A bare `?abc123` may itself be the token.
      if (eq === -1) return param === '' ? '' : HIDDEN;
      const value = param.slice(eq + 1);
      return value === '' || REFERENCE.test(value) ? param : `${param.slice(0, eq)}=${HIDDEN}`;
    });
  return `?${params.join('&')}`;
}

/** `https://user:pw@host/mcp?api_key=s3cret#x` → `https://host/mcp?api_key=***#***`. */
export function displayUrl(url: string): string {
  const m = PARTS.exec(url);
  if (!m) return HIDDEN;
  const [, scheme = '', rest = '', query, fragment] = m;
  const shownFragment = fragment === undefined || fragment === '#' ? (fragment ?? '') : `#${HIDDEN}`;
  return `${scheme}${rest}${query === undefined ? '' : displayQuery(query)}${shownFragment}`;
}

/** Absolute URLs in running text; trailing punctuation is the sentence's, not the URL's. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*[^\s"'<>`.,;:!?)\]]/gi;

/** `text` with every absolute URL in it shown as displayUrl shows it (error messages that quote a request's URL). */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => displayUrl(url));
}

/** True when the URL text carries a user name or password (`scheme://user:pw@host`). */
export function hasUserinfo(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url.trim());
}

/** Shorter values (`?v=2`) would hide ordinary words; keys and tokens are longer. */
const MIN_SECRET_CHARS = 6;

/**
 * The values displayUrl hides, as they may appear elsewhere (a server's error text that quotes its
 * request path, `/mcp?api_key=…`): user name, password, query values and fragment, as written
 * and percent-decoded. For redacting what displayUrl cannot see; unparseable text gives none.
 */
export function urlSecretValues(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const raw = [
    parsed.username,
    parsed.password,
    parsed.hash.slice(1),
    ...parsed.search
      .slice(1)
      .split('&')
      .map((p) => p.slice(p.indexOf('=') + 1)),
  ];
  const decoded = raw.map((v) => {
    try {
      return decodeURIComponent(v.replace(/\+/g, ' '));
    } catch {
      return v;
    }
  });
  // Longest first, so a value is never half-hidden by a shorter one it contains.
  return [...new Set([...raw, ...decoded])].filter((v) => v.length >= MIN_SECRET_CHARS && !REFERENCE.test(v)).sort((a, b) => b.length - a.length);
}

/** `text` without any of `values` (urlSecretValues), each replaced by `***`. */
export function hideValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of values) out = out.split(v).join(HIDDEN);
  return out;
}
