// The system prompt, assembled from parts: each part describes one tool (or one capability of a
// tool) and is included only when that tool is offered, so the model is never told about
// something it cannot use. Pure. It depends only on what is offered, the mode and the AGENTS.md
// texts, never on the directory, the date or the sandbox (those change during a session and go
// in the environment context, environment.ts): the prompt stays byte-identical across turns, so
// the server's prompt cache keeps hitting.
import type { InstructionFile } from '../model/request.ts';
import type { ToolDefinition } from '../wire/items.ts';

export interface PromptInput {
  /** The definitions the registry offers (what the model really gets). */
  tools: readonly ToolDefinition[];
  /** Plan mode: read and think, change nothing (frontends decide; the tools already reflect it). */
  planMode?: boolean;
  /** AGENTS.md files, outermost first. */
  agentsFiles: readonly InstructionFile[];
  /** MCP servers are configured: their tools may join after the prompt is built. */
  mcp?: boolean;
  /** Skills the model may load (skills.ts): name, description and where its SKILL.md is. */
  skills?: readonly { name: string; description: string; path: string }[];
}

/** The name each definition is offered under: built-in tools by type, functions by name. */
export function offeredNames(tools: readonly ToolDefinition[]): string[] {
  return tools.map((t) => (t.type === 'function' || t.type === 'custom' ? t.name : t.type));
}

/** Whether a command tool takes the escalation fields (Codex's `sandbox_permissions`, or the older `with_escalated_permissions`). */
export function offersEscalation(tools: readonly ToolDefinition[]): boolean {
  return tools.some((t) => {
    if (t.type !== 'function') return false;
    const props = t.parameters.properties;
    return typeof props === 'object' && props !== null && ('sandbox_permissions' in props || 'with_escalated_permissions' in props);
  });
}

const BASE = [
  "You are agentx, a coding agent working in the user's terminal. You and the user share one workspace: you read files, run commands and edit code there to do what they ask.",
  'Work in small, safe, inspectable steps. Look before you change: read the relevant code first, then make the smallest change that does the job, then check it (build, tests, a quick run) when you can.',
  'Never repeat a command or an edit that already ran unless the user asks; its result is already in the conversation.',
  'An environment context message (<environment_context>) tells you the working directory, shell, operating system, date, sandbox, network and approval mode; a newer one replaces an older one.',
].join('\n');

const READING = [
  '## Reading the workspace',
  "Read with fast, read-only commands: `rg` (or `grep -rn`) to search, `rg --files` or `ls` to list, `sed -n 'START,ENDp' FILE` or `head`/`tail` to read part of a file. Read large files in pieces rather than all at once.",
].join('\n');

const SHELL = [
  '## Running commands: `shell`',
  'The `shell` tool runs commands in the working directory and returns their exit code and output (long output is cut in the middle). Each call starts a fresh shell: `cd` and variables do not carry over, so give paths or chain with `&&`. Use it for builds, tests, git and searching. Do not start programs that wait for input or never exit (servers, watchers, editors, pagers) with it.',
].join('\n');

const EXEC = [
  '## Long-running and interactive commands: `exec_command` and `write_stdin`',
  '`exec_command` runs a command and returns its output, or, if it is still running after the wait, a session id. Use it for servers, watchers and programs that ask questions; `write_stdin` sends characters to that session (an empty string just polls for new output). Stop what you started when you no longer need it.',
].join('\n');

const ESCALATION = [
  '## When the sandbox is in the way',
  'If a command fails only because of the sandbox (no network, a read-only path) and the task really needs it, run it again with `sandbox_permissions` set to `require_escalated` and a one-sentence `justification` the user can answer yes or no to. Ask only for the command that needs it, never for the whole task, and never to work around a refusal the user already gave.',
  'You may add `prefix_rule`, a short command prefix the user can allow from now on (for example `["npm", "install"]`); never a shell, an interpreter or `sudo` alone. If the answer says the user declined, or that a rule denies the command, do not retry it: take another approach or ask. If the user said what to do instead, do that.',
].join('\n');

const NO_ESCALATION =
  'If the sandbox blocks something the task needs (no network, a read-only path), do not try to work around it: tell the user what you need and why; only they can change it.';

const PATCH = [
  '## Editing files: `apply_patch`',
  'Change files only with `apply_patch`: it shows the user a diff and records the change for rollback. Do not edit files with shell redirections, `sed -i`, here-documents or scripts. A patch adds, updates, moves or deletes files; give enough unchanged context lines to place each hunk, and keep each patch focused. If a patch fails, read the file again before retrying.',
].join('\n');

const PLAN_TOOL = [
  '## Plans: `update_plan`',
  'For a task of several steps, keep a short plan with `update_plan`: a list of steps, each `pending`, `in_progress` or `completed`, at most one `in_progress`. Send the whole list each time a step starts or finishes; the user sees it as a checklist. Skip it for simple one-step requests.',
].join('\n');

const VIEW_IMAGE = '`view_image` puts a local image file (a screenshot, a diagram) in front of you; use it when the user refers to an image by path.';
const WEB_SEARCH = '`web_search` searches the web; use it for facts that may have changed since your training (versions, APIs, errors) and cite what you use.';
const IMAGE_GENERATION = '`image_generation` creates an image from a description; the image is saved in the workspace and its path shown to the user.';
const MCP =
  'Tools named `mcp__SERVER__TOOL` come from MCP servers the user configured; they may change things outside the workspace, so use them only for what the user asked.';

const PLAN_MODE = [
  '## Plan mode',
  'You are in plan mode: investigate and think, but change nothing. Files cannot be edited and commands run read-only. Read what you need, then answer with a concrete plan (the files to change and how, the commands to run, the risks), and end your turn. The user approves the plan, and then you carry it out in a later turn.',
].join('\n');

const ANSWER = [
  '## Answering',
  'Your answer is rendered as Markdown in the terminal: use short paragraphs, bullet lists, `inline code` for names and paths, and fenced code blocks with a language for code. Keep headings few and answers concise: say what you did, what you found, and anything the user must decide or do. Do not paste whole files you changed; the user sees the diffs.',
  'End your turn when the task is done, when you need an answer from the user, or when something blocks you; say which. Do not end a turn with a promise to do more.',
].join('\n');

const AGENTS_SCOPE = [
  '## AGENTS.md',
  "AGENTS.md files hold the user's standing instructions for this project. The ones below were found from the home directory down to the workspace; an AGENTS.md applies to the directory it is in and everything below it, and a deeper one wins where they disagree. Direct instructions from the user in the conversation win over all of them. Follow them for every file you touch.",
].join('\n');

function skillsPart(skills: NonNullable<PromptInput['skills']>): string {
  return [
    '## Skills',
    'Skills are instructions for particular kinds of work, written by the user or their team. Before a task a skill fits, load it with `load_skill` and follow it; do not load skills you do not need.',
    ...skills.map((s) => `- ${s.name}: ${s.description}`),
  ].join('\n');
}

/** The system prompt for what is offered now. */
export function systemPrompt(input: PromptInput): string {
  const names = new Set(offeredNames(input.tools));
  const runsCommands = names.has('shell') || names.has('exec_command');
  const parts = [BASE];
  if (runsCommands) parts.push(READING);
  if (names.has('shell')) parts.push(SHELL);
  if (names.has('exec_command')) parts.push(EXEC);
  if (runsCommands) parts.push(offersEscalation(input.tools) ? ESCALATION : NO_ESCALATION);
  if (names.has('apply_patch')) parts.push(PATCH);
  if (names.has('update_plan')) parts.push(PLAN_TOOL);
  const others = [
    names.has('view_image') ? VIEW_IMAGE : '',
    names.has('web_search') ? WEB_SEARCH : '',
    names.has('image_generation') ? IMAGE_GENERATION : '',
    input.mcp === true || [...names].some((n) => n.startsWith('mcp__')) || names.has('mcp') ? MCP : '',
  ].filter((p) => p !== '');
  if (others.length > 0) parts.push(['## Other tools', ...others].join('\n'));
  if (input.planMode === true) parts.push(PLAN_MODE);
  if (names.has('load_skill')) parts.push(skillsPart(input.skills ?? []));
  parts.push(ANSWER);
  if (input.agentsFiles.length > 0) {
    parts.push(AGENTS_SCOPE);
    for (const f of input.agentsFiles) parts.push(`# Instructions from ${f.path}\n${f.text}`);
  }
  return parts.join('\n\n');
}
