// RELIABILITY.md keeps what a run did not measure (test/fault/lib/report-doc.mjs): a run of one
// check replaces that check's row and section and leaves every other one as it was.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { mergeReport } from './lib/report-doc.mjs';

const repo = join(import.meta.dirname, '../..');
const header = ['| check | runs | what one run is | assertions | failures | time |', '|---|---:|---|---:|---:|---:|'];
const defects = '## Defects found and fixed\n\nthe list\n';

function runOf(id: string, title: string, marker: string) {
  return {
    intro: ['# Reliability report'],
    runLines: [`- Last run: ${marker}`],
    header,
    rows: new Map([[title, `| ${title} | 3 | one | 9 | 0 | 1 s |`]]),
    sections: [{ id, title, text: `## ${title}\n\n${marker} counts` }],
    defects,
  };
}

it('a run of one check replaces only its row and section (the legacy file first, then the marked one)', () => {
  const legacy = readFileSync(join(repo, 'test/fault/fixtures/reliability-legacy.md'), 'utf8');
  const once = mergeReport(legacy, runOf('5-log', 'The conversation log under kill -9', 'first'));
  // The other checks' rows and sections are kept; the re-run one replaced, not duplicated.
  expect(once).toContain('| Crash fuzz | 402 |');
  expect(once).toContain('## Crash fuzz');
  expect(once).toContain('crash fuzz body');
  expect(once).toContain('| The conversation log under kill -9 | 3 |');
  expect(once).not.toContain('| The conversation log under kill -9 | 80 |');
  expect(once).not.toContain('old log body');
  expect(once.match(/## The conversation log under kill -9/g)).toHaveLength(1);
  expect(once.trimEnd().endsWith('the list')).toBe(true);

  const twice = mergeReport(mergeReport(once, runOf('7-trust', 'Trust boundary', 'new')), runOf('5-log', 'The conversation log under kill -9', 'second'));
  expect(twice).toContain('second counts');
  expect(twice).not.toContain('first counts');
  expect(twice).toContain('new counts');
  expect(twice).toContain('| Trust boundary | 3 |');
  expect(twice).toContain('crash fuzz body');
  expect(twice.match(/## Defects found and fixed/g)).toHaveLength(1);
  expect(twice.match(/<!-- fault:summary -->/g)).toHaveLength(1);
  expect(twice).toContain('- Last run: second');
});
