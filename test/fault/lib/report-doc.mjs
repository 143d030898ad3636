// RELIABILITY.md is shared: `npm run fault` may run all checks or a few (a file filter), and each
// run rewrites only what it measured. The summary table keeps the rows of checks this run did not
// run; each check's section sits between <!-- fault:ID --> markers and is replaced on its own; a
// section written before the markers existed is found by its `## title` heading. The defects list
// (test/fault/DEFECTS.md, the source of truth) always closes the file.

const DEFECTS_HEADING = '## Defects found and fixed';

function block(id, text) {
  return `<!-- fault:${id} -->\n${text.trim()}\n<!-- /fault:${id} -->`;
}

function markerRange(doc, id) {
  const open = `<!-- fault:${id} -->`;
  const start = doc.indexOf(open);
  if (start < 0) return null;
  const close = `<!-- /fault:${id} -->`;
  const end = doc.indexOf(close, start);
  return end < 0 ? null : { start, end: end + close.length };
}

/** A legacy section: from its heading to the next `## ` heading (or the end). */
function headingRange(doc, title) {
  const re = new RegExp(`^## ${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm');
  const m = re.exec(doc);
  if (m === null) return null;
  const next = doc.slice(m.index + m[0].length).search(/^## /m);
  return { start: m.index, end: next < 0 ? doc.length : m.index + m[0].length + next };
}

function replaceRange(doc, range, text) {
  return `${doc.slice(0, range.start).trimEnd()}\n\n${text}\n\n${doc.slice(range.end).trimStart()}`;
}

/** Table rows of the summary block (or of the legacy table) by their first cell. */
function tableRows(text) {
  const rows = new Map();
  for (const line of text.split('\n')) {
    const m = /^\| ([^|]+?) \|/.exec(line);
    if (m && !line.startsWith('|---') && m[1] !== 'check') rows.set(m[1], line);
  }
  return rows;
}

/**
 * The new document: `doc` (the file as it is, or '') with this run's summary, rows and sections.
 * `run`: { intro: string[], runLines: string[], header: string[], rows: Map<title, row>, sections: [{ id, title, text }], defects: string }.
 */
export function mergeReport(doc, run) {
  let out = doc.trim() === '' ? '' : doc;
  const summaryRange = markerRange(out, 'summary');
  // Before the markers: the summary is everything from the title to the first check section.
  const legacyEnd = summaryRange === null ? out.search(/^## /m) : -1;
  const oldSummary = summaryRange !== null ? out.slice(summaryRange.start, summaryRange.end) : out.slice(0, legacyEnd < 0 ? out.length : legacyEnd);
  const rows = tableRows(oldSummary);
  for (const [title, row] of run.rows) rows.set(title, row);
  const summary = block('summary', [...run.runLines, '', ...run.header, ...rows.values()].join('\n'));
  const head = [...run.intro, '', summary].join('\n');
  if (summaryRange !== null) out = `${head}\n\n${out.slice(summaryRange.end).trimStart()}`;
  else out = `${head}\n\n${legacyEnd < 0 ? '' : out.slice(legacyEnd)}`;

  // The defects list goes last, rewritten from its source; sections are placed before it.
  const defectsAt = out.indexOf(DEFECTS_HEADING);
  if (defectsAt >= 0) out = out.slice(0, defectsAt);
  for (const s of run.sections) {
    const text = block(s.id, s.text);
    const range = markerRange(out, s.id) ?? headingRange(out, s.title);
    out = range === null ? `${out.trimEnd()}\n\n${text}\n` : replaceRange(out, range, text);
  }
  return `${out.trimEnd()}\n\n${run.defects.trim()}\n`;
}
