// Injected by scripts/build.mjs from package.json; the fallback only shows in unbundled tests.
declare const __AGENTX_VERSION__: string | undefined;
export const VERSION: string = typeof __AGENTX_VERSION__ === 'string' ? __AGENTX_VERSION__ : '0.0.0-dev';
