// The SDK's OAuthClientProvider over agentx's sign-in store (oauth-store.ts). The SDK does the
// protocol — discovery, dynamic client registration, PKCE, the code exchange, refreshing an
// expired token on a 401 — and asks this object for what to keep and where to send the person.
// In a session there is nobody to send to a browser: a server whose sign-in ran out (refresh
// refused) fails with the line that says how to sign in again.
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { readOAuthEntry, writeOAuthEntry } from './oauth-store.ts';
import type { OAuthEntry } from './oauth-store.ts';

export interface ProviderOptions {
  storePath: string;
  key: string;
  server: string;
  /** The local callback of `agentx mcp login`; absent in sessions. */
  redirectUrl?: string;
  /** Shows the person the authorization URL (login only). */
  onRedirect?: (url: URL) => void | Promise<void>;
  /** A random state value, checked on the callback. */
  state?: string;
}

export class SignInRequired extends Error {}

export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(private readonly opts: ProviderOptions) {}

  /**
   * In a session, the address registered at sign-in: the SDK takes a provider without one for a
   * non-interactive client (client credentials) and would not refresh.
   */
  get redirectUrl(): string | undefined {
    if (this.opts.redirectUrl !== undefined) return this.opts.redirectUrl;
    const uris = this.entry()?.client?.redirect_uris;
    return Array.isArray(uris) && typeof uris[0] === 'string' ? uris[0] : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'agentx',
      redirect_uris: this.opts.redirectUrl ? [this.opts.redirectUrl] : [],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A CLI cannot keep a client secret: a public client, PKCE instead.
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.opts.state ?? '';
  }

  private entry(): OAuthEntry | undefined {
    return readOAuthEntry(this.opts.storePath, this.opts.key);
  }

  private update(change: Partial<OAuthEntry>): void {
    const old = this.entry();
    writeOAuthEntry(this.opts.storePath, this.opts.key, { ...old, ...change, savedAt: new Date().toISOString() });
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.entry()?.client as StoredOAuthClientInformation | undefined;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.update({ client: { ...info } });
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.entry()?.tokens as StoredOAuthTokens | undefined;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.update({ tokens: { ...tokens } });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.opts.onRedirect === undefined) throw new SignInRequired(`needs sign-in (run: agentx mcp login ${this.opts.server})`);
    await this.opts.onRedirect(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  /** Which authorization server the sign-in started with: the callback leg is checked against it. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no sign-in in progress');
    return this.verifier;
  }
}
