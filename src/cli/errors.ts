// Typed errors with exit codes (SPEC §1): front-ends turn them into one line on stderr and an
// exit status; nothing else about them reaches the user (no stack traces).
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

export class AgentxError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags or arguments. */
export class UsageError extends AgentxError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

/** Missing or invalid configuration (no API key, bad config value). */
export class ConfigError extends AgentxError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}
