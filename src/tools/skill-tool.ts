// load_skill: the model reads one of the listed skills (config/skills.ts) when a task needs it.
// The file is read here rather than by a command, so a skill is readable whatever the sandbox
// hides and whichever command tool is offered. Bounded: a skill over 32 KiB is cut, and says so.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatBytes } from '../lib/text.ts';
import type { FunctionToolDefinition } from '../wire/items.ts';
import type { ParsedCall, Tool } from './tool.ts';

export const LOAD_SKILL_NAME = 'load_skill';
export const MAX_SKILL_BYTES = 32 * 1024;

export interface SkillEntry {
  name: string;
  description: string;
  path: string;
}
interface SkillCall extends ParsedCall {
  skill: SkillEntry;
}

function definition(skills: readonly SkillEntry[]): FunctionToolDefinition {
  return {
    type: 'function',
    name: LOAD_SKILL_NAME,
    description: 'Loads the instructions of one of the skills listed in your instructions. Load a skill before a task it fits, then follow it.',
    strict: true,
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', enum: skills.map((s) => s.name), description: "The skill's name." } },
      required: ['name'],
      additionalProperties: false,
    },
  };
}

/** The skill's text for the model, cut at MAX_SKILL_BYTES (said in the text). */
export function readSkill(skill: SkillEntry): { text: string; cut: boolean } {
  const bytes = readFileSync(skill.path);
  if (bytes.length <= MAX_SKILL_BYTES) return { text: bytes.toString('utf8'), cut: false };
  const head = bytes
    .subarray(0, MAX_SKILL_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { text: `${head}\n\n[skill cut: ${formatBytes(bytes.length)}, only the first ${formatBytes(MAX_SKILL_BYTES)} are shown]`, cut: true };
}

export function createSkillTool(skills: readonly SkillEntry[]): Tool<SkillCall> {
  return {
    name: LOAD_SKILL_NAME,
    writes: false,
    definitions: () => [definition(skills)],
    accepts: (item) => item.type === 'function_call' && item.name === LOAD_SKILL_NAME,
    parse(item) {
      if (item.type !== 'function_call') return { ok: false, callId: item.call_id, error: 'load_skill is a function tool' };
      let name: unknown;
      try {
        name = (JSON.parse(item.arguments) as { name?: unknown }).name;
      } catch {
        return { ok: false, callId: item.call_id, error: 'load_skill: the arguments are not valid JSON' };
      }
      const skill = skills.find((s) => s.name === name);
      if (skill === undefined)
        return {
          ok: false,
          callId: item.call_id,
          error: `load_skill: no skill named ${JSON.stringify(name)}; the skills are ${skills.map((s) => s.name).join(', ')}`,
        };
      return { ok: true, call: { callId: item.call_id, title: `load_skill ${skill.name}`, commands: [], skill } };
    },
    run(call) {
      let output: string;
      // The person sees a cut too (the summary line), not only the model.
      let summary = `load_skill ${call.skill.name}`;
      try {
        const { text, cut } = readSkill(call.skill);
        if (cut) summary += ` (cut: only the first ${formatBytes(MAX_SKILL_BYTES)} were sent)`;
        // Where it lives: a skill refers to files next to its SKILL.md by relative paths.
        output = `Skill "${call.skill.name}" (${call.skill.path}; files it refers to are relative to ${dirname(call.skill.path)}):\n\n${text}`;
      } catch (err) {
        output = `error: the skill file ${call.skill.path} cannot be read (${err instanceof Error ? err.message : String(err)})`;
      }
      return Promise.resolve({
        reply: { ok: !output.startsWith('error: '), text: output },
        summary: [summary],
        interrupted: false,
      });
    },
  };
}
