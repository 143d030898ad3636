// The front-ends' side of bin/agentx.js's V8 code cache: a run that answered has compiled what
// answering needs, so its cache is worth keeping (a failed start or --version would leave a
// cache that holds little, and it would be kept).

declare global {
  /** Set by bin/agentx.js; absent when agentx is started another way (tests importing src/). */
  var __agentxCodeCache: { worthy: boolean } | undefined;
}

export function markCodeCacheWorthy(): void {
  if (globalThis.__agentxCodeCache) globalThis.__agentxCodeCache.worthy = true;
}
