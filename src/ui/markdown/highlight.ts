// Syntax colours for fenced code blocks: highlight.js core with the languages an agent's answers
// mostly hold (each registered language costs bundle size and startup, so not all 190), its HTML
// output turned into ANSI colours of the terminal's own 16-colour palette.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import makefile from 'highlight.js/lib/languages/makefile';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, c, cpp, css, diff, dockerfile, go, ini, java, javascript, json, makefile, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
// Fence names models use that the grammars do not declare themselves.
hljs.registerAliases(['sh', 'zsh', 'console', 'shellsession'], { languageName: 'bash' });
hljs.registerAliases(['toml'], { languageName: 'ini' });
hljs.registerAliases(['patch'], { languageName: 'diff' });

interface Style {
  open: string;
  close: string;
}

const FG = (n: number): Style => ({ open: `\x1b[${n}m`, close: '\x1b[39m' });
const STYLES: Record<string, Style> = {
  keyword: FG(35),
  'selector-tag': FG(35),
  doctag: FG(35),
  section: FG(35),
  name: FG(35),
  tag: FG(35),
  string: FG(32),
  regexp: FG(32),
  addition: FG(32),
  'template-tag': FG(32),
  char: FG(32),
  number: FG(33),
  literal: FG(33),
  symbol: FG(33),
  bullet: FG(33),
  link: FG(33),
  title: FG(34),
  function: FG(34),
  'selector-id': FG(34),
  'selector-class': FG(34),
  built_in: FG(36),
  type: FG(36),
  class: FG(36),
  attr: FG(36),
  attribute: FG(36),
  property: FG(36),
  variable: FG(31),
  'template-variable': FG(31),
  deletion: FG(31),
  comment: { open: '\x1b[2m', close: '\x1b[22m' },
  quote: { open: '\x1b[2m', close: '\x1b[22m' },
  meta: { open: '\x1b[2m', close: '\x1b[22m' },
  emphasis: { open: '\x1b[3m', close: '\x1b[23m' },
  strong: { open: '\x1b[1m', close: '\x1b[22m' },
};

/** The style of an hljs class list ("hljs-title function_"): its first known scope. */
function styleOf(classes: string): Style | undefined {
  for (const cls of classes.split(/\s+/)) {
    const scope = cls.replace(/^hljs-/, '').replace(/_+$/, '');
    const style = STYLES[scope] ?? STYLES[scope.split('.')[0] ?? ''];
    if (style) return style;
  }
  return undefined;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" };

function unescapeHtml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (_m, name: string) => ENTITIES[name] ?? '');
}

export function knownLanguage(lang: string): boolean {
  return lang !== '' && hljs.getLanguage(lang) !== undefined;
}

/**
 * The code as coloured rows (one per source line). Every row closes what it opened, so rows
 * can be shown, indented or dropped one by one. Unknown languages come back uncoloured.
 */
export function highlightRows(code: string, lang: string): string[] {
  const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!knownLanguage(name)) return code.split('\n');
  const html = hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  const rows: string[] = [];
  const stack: (Style | undefined)[] = [];
  let row = '';
  const current = (): Style | undefined => stack.findLast((s) => s !== undefined);
  const addText = (text: string): void => {
    const style = current();
    const lines = unescapeHtml(text).split('\n');
    lines.forEach((line, i) => {
      if (i > 0) {
        rows.push(row);
        row = '';
      }
      if (line !== '') row += style ? `${style.open}${line}${style.close}` : line;
    });
  };
  const TAG = /<span class="([^"]*)">|<\/span>/g;
  let at = 0;
  for (let m = TAG.exec(html); m !== null; m = TAG.exec(html)) {
    addText(html.slice(at, m.index));
    if (m[1] !== undefined) stack.push(styleOf(m[1]));
    else stack.pop();
    at = m.index + m[0].length;
  }
  addText(html.slice(at));
  rows.push(row);
  return rows;
}
