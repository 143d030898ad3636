// Tests that plant a session file "as agentx wrote it" seal it with the sandbox's own key (the
// person's key: the test plays the person, not the model), the way store/seal.ts does.
import { stateKeyPath } from '../../src/paths.ts';
import { sealJson, useStateKey } from '../../src/store/seal.ts';

export function sealedAsAgentx(sb: { home: string; env: NodeJS.ProcessEnv }, filePath: string, json: string): string {
  useStateKey(stateKeyPath(sb.env, sb.home));
  try {
    return sealJson(filePath, json);
  } finally {
    useStateKey(undefined);
  }
}
