// What the model is offered: the tool in its three forms (built-in, JSON function, freeform
// custom tool with a Lark grammar) and the words that teach it the patch format.

export type PatchToolForm = 'builtin' | 'function' | 'custom';

export const PATCH_TOOL_FORMS: readonly PatchToolForm[] = ['builtin', 'function', 'custom'];

export const APPLY_PATCH_NAME = 'apply_patch';

const EXAMPLE = `*** Begin Patch
*** Add File: docs/hello.txt
+Hello, world!
*** Update File: src/greet.py
@@ def greet(name):
-    print("Hi " + name)
+    print(f"Hello, {name}!")
*** Delete File: src/old.py
*** End Patch`;

const RULES = `Sections: "*** Add File: <path>" followed by the new file's lines, each starting with "+"; \
"*** Delete File: <path>"; "*** Update File: <path>", optionally followed by "*** Move to: <new path>", then hunks. \
In a hunk, unchanged lines start with " " (give about 3 before and after each change), removed lines with "-", added lines with "+". \
When the context alone is not unique, start the hunk with "@@ <line>" naming a line above it, such as the enclosing class or function; \
stack several "@@" lines to narrow down. Separate hunks of one file with "@@" lines; end a hunk that reaches the end of the file with "*** End of File". \
Paths are relative to the working directory and must stay inside the workspace. The sections apply together or not at all.`;

/** Description of the JSON function form. */
export const FUNCTION_DESCRIPTION = `Edit files with a patch. Put the whole patch in "input", for example:

${EXAMPLE}

${RULES}`;

/** Description of the freeform custom form (the grammar carries the syntax). */
export const CUSTOM_DESCRIPTION = `Edit files with a patch. This is a freeform tool: send the patch text itself, not JSON. For example:

${EXAMPLE}

${RULES}`;

/** JSON schema of the function form's arguments: one string holding the whole envelope. */
export const FUNCTION_PARAMETERS = {
  type: 'object',
  properties: {
    input: { type: 'string', description: 'The whole patch, from "*** Begin Patch" to "*** End Patch".' },
  },
  required: ['input'],
  additionalProperties: false,
} as const;

/**
 * Lark grammar of the envelope for the custom form. Hunk lines are one flat list (anchors,
 * context, removed, added) so the grammar is unambiguous; the parser groups them into hunks.
 * No terminal matches the empty string (Lark refuses zero-width terminals), so a line's text is
 * optional instead. Checked with Lark 1.3 (LALR and Earley) against the corpus in test/patches.
 */
export const LARK_GRAMMAR = String.raw`start: begin_patch section+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

section: add_file | delete_file | update_file
add_file: "*** Add File: " TEXT LF added_line*
delete_file: "*** Delete File: " TEXT LF
update_file: "*** Update File: " TEXT LF move_to? hunk_line* end_of_file?
move_to: "*** Move to: " TEXT LF

added_line: "+" TEXT? LF
hunk_line: (anchor | context_line | removed_line | added_text) LF
anchor: "@@" (" " TEXT)?
context_line: " " TEXT?
removed_line: "-" TEXT?
added_text: "+" TEXT?
end_of_file: "*** End of File" LF

TEXT: /[^\r\n]+/
%import common.LF
`;

export type PatchToolDefinition =
  | { type: 'apply_patch' }
  | { type: 'function'; name: string; description: string; strict: boolean; parameters: typeof FUNCTION_PARAMETERS }
  | { type: 'custom'; name: string; description: string; format: { type: 'grammar'; syntax: 'lark'; definition: string } };

/** The `tools` entry that offers apply_patch in the given form. */
export function patchToolDefinition(form: PatchToolForm): PatchToolDefinition {
  switch (form) {
    case 'builtin':
      return { type: 'apply_patch' };
    case 'function':
      // Not strict: strict mode adds nothing for a single required string and some servers reject it.
      return { type: 'function', name: APPLY_PATCH_NAME, description: FUNCTION_DESCRIPTION, strict: false, parameters: FUNCTION_PARAMETERS };
    case 'custom':
      return { type: 'custom', name: APPLY_PATCH_NAME, description: CUSTOM_DESCRIPTION, format: { type: 'grammar', syntax: 'lark', definition: LARK_GRAMMAR } };
  }
}
