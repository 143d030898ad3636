// A file a tool call changed: the one shape the patch tool plans and reports, the engine's
// `files_changed` event carries and `--json` prints (frontends/json.ts, in snake case).

export interface FileChange {
  /** Workspace-relative path ('/' separators); the source of a move. */
  path: string;
  /** Set when the file was moved: the new path. */
  movedTo?: string;
  operation: 'create' | 'update' | 'delete';
  added: number;
  removed: number;
  /** Plain unified diff (no colour; empty for a binary file or a pure rename); the renderer colours and folds it. */
  diff: string;
  /** Set when the content could not be shown (a deleted binary or oversized file). */
  note?: string;
}
