// Work the first prompt does not need, started once it is drawn (issue 28: interactive start).
// Before this, the REPL loaded the Markdown renderer, opened the snapshot store (the workspace
// library and a `git --version`) and listed the project's files (`git ls-files`) before drawing
// its prompt; a person waits for none of them until they send a message or type `@`.
//
// Nothing here may be something a guarantee depends on: whatever needs one of these waits for it
// itself (a turn awaits the Markdown renderer, the engine awaits the snapshot store, `@` asks the
// file list), so doing them later only moves their cost, never skips it.

export class AfterPrompt {
  private tasks: (() => void)[] = [];
  private drawn = false;

  /** Runs `task` once the first prompt is on the screen (at once, in the next turn of the event loop, if it already is). */
  add(task: () => void): void {
    if (this.drawn) setImmediate(task);
    else this.tasks.push(task);
  }

  /**
   * The prompt was just written. A TTY write is synchronous, so its bytes are out; the tasks run
   * in the next turn of the event loop.
   */
  promptDrawn(): void {
    if (this.drawn) return;
    this.drawn = true;
    const tasks = this.tasks;
    this.tasks = [];
    if (tasks.length > 0)
      setImmediate(() => {
        for (const task of tasks) task();
      });
  }
}
