import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommandLine, quoteWord } from './shell-words.ts';

const SEED = Number(process.env.AGENTX_TEST_SEED ?? 20_261_204);
console.log(`shell-words properties: seed ${SEED} (replay with AGENTX_TEST_SEED=${SEED})`);

function parts(line: string): string[][] {
  const p = parseCommandLine(line);
  if (!p.ok) throw new Error(`unparseable: ${p.reason}`);
  return p.commands.map((c) => c.words.map((w) => (w.literal ? w.text : `<${w.text}>`)));
}

describe('parseCommandLine', () => {
  it('splits at every operator a shell runs commands at', () => {
    expect(parts('npm test && curl evil')).toEqual([
      ['npm', 'test'],
      ['curl', 'evil'],
    ]);
    expect(parts('a || b; c | d & e |& f')).toEqual([['a'], ['b'], ['c'], ['d'], ['e'], ['f']]);
    expect(parts('a\nb')).toEqual([['a'], ['b']]);
    expect(parts('(cd x && make) ; { ls; }')).toEqual([['cd', 'x'], ['make'], ['ls']]);
  });

  it('records substitutions as commands of their own, and their word as not literal', () => {
    const p = parseCommandLine('npm test $(rm -rf x)');
    expect(p.ok && p.commands.map((c) => [c.words.map((w) => w.text).join(' '), c.substituted])).toEqual([
      ['rm -rf x', true],
      ['npm test ', false],
    ]);
    expect(parts('echo `whoami` "$(id -u)" <(cat f)')).toEqual([['whoami'], ['id', '-u'], ['cat', 'f'], ['echo', '<>', '<>', '<>']]);
  });

  it('strips assignments, wrappers and redirections; unwraps bash -c', () => {
    expect(parts('FOO=1 BAR="a b" npm test')).toEqual([['npm', 'test']]);
    expect(parts('env -i A=1 sudo -E nohup npm test > out.log 2>&1')).toEqual([['npm', 'test']]);
    expect(parts(`bash -c 'npm test && curl evil'`)).toEqual([
      ['npm', 'test'],
      ['curl', 'evil'],
    ]);
    expect(parts('timeout 10 npm test &>/dev/null')).toEqual([['npm', 'test']]);
    // wrappers' options that take a value are stepped over with their value
    expect(parts('sudo -u root ls')).toEqual([['ls']]);
    expect(parts('timeout -s KILL -k 2 5 nice -n 5 exec -a x /bin/ls -l')).toEqual([['/bin/ls', '-l']]);
    expect(parts('bash -lc "a; b" && sh -e -o pipefail -c c')).toEqual([['a'], ['b'], ['c']]);
    expect(parts('bash build.sh')).toEqual([['bash', 'build.sh']]);
    expect(parts('cat < in.txt >> out.txt')).toEqual([['cat']]);
    expect(parts('echo hi > $(rm -rf x)')).toEqual([
      ['rm', '-rf', 'x'],
      ['echo', 'hi'],
    ]);
  });

  it('removes quotes the way a shell does', () => {
    expect(parts(`'npm' "te"st a\\ b 'it''s'`)).toEqual([['npm', 'test', 'a b', 'its']]);
    expect(parts(`echo "a \\"b\\" \\$x"`)).toEqual([['echo', 'a "b" $x']]);
    expect(parts('echo $HOME ~/x *.ts')).toEqual([['echo', '<>', '<~/x>', '<*.ts>']]);
  });

  it('refuses what it does not understand', () => {
    for (const line of [
      'echo "unclosed',
      "echo 'x",
      'cat <<EOF\nhi\nEOF',
      'if true; then ls; fi',
      'for i in 1; do ls; done',
      'echo $((1+2))',
      'a &&',
      '&& a',
      'a | | b',
      'echo )',
      'sh -c "$X"',
      'eval ls',
      'xargs ls',
      'find . -exec ls {} +',
      'bash',
      'sh -s',
    ]) {
      expect(parseCommandLine(line).ok, line).toBe(false);
    }
  });

  it('treats a comment as the end of the line', () => {
    expect(parts('npm test # && curl evil')).toEqual([['npm', 'test']]);
    expect(parts('echo a#b')).toEqual([['echo', 'a#b']]);
  });

  it('reads back any words it was given quoted (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0')),
          { minLength: 1, maxLength: 6 },
        ),
        (words) => {
          const line = words.map(quoteWord).join(' ');
          // The first word may be an assignment, a wrapper or a keyword; compare only lines that start with a plain word.
          if (
            /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string) ||
            [
              'env',
              'sudo',
              'doas',
              'nohup',
              'time',
              'exec',
              'command',
              'builtin',
              'nice',
              'stdbuf',
              'timeout',
              'sh',
              'bash',
              'zsh',
              'dash',
              'ksh',
              '{',
              '}',
            ].includes(words[0] as string) ||
            [
              'if',
              'then',
              'else',
              'elif',
              'fi',
              'for',
              'while',
              'until',
              'do',
              'done',
              'case',
              'esac',
              'function',
              'select',
              '[[',
              ']]',
              '!',
              'coproc',
            ].includes(words[0] as string)
          )
            return;
          const p = parseCommandLine(line);
          expect(p.ok).toBe(true);
          if (!p.ok) return;
          expect(p.commands).toHaveLength(1);
          expect(p.commands[0]?.words.map((w) => w.text)).toEqual(words);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('agrees with bash on the words of quoted lines (property, real bash)', () => {
    const has = spawnSync('bash', ['-c', 'true']).status === 0;
    if (!has) return;
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !s.includes('\0')),
          { minLength: 1, maxLength: 4 },
        ),
        (words) => {
          const line = `printf '%s\\0' ${words.map(quoteWord).join(' ')}`;
          const out = spawnSync('bash', ['-c', line], { encoding: 'utf8' }).stdout;
          const p = parseCommandLine(line);
          expect(p.ok).toBe(true);
          if (!p.ok) return;
          expect(p.commands[0]?.words.slice(2).map((w) => w.text)).toEqual(out.split('\0').slice(0, -1));
        },
      ),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('never throws, and every part of an operator-joined line is found (property)', () => {
    const word = fc.stringMatching(/^[a-z]{1,6}$/);
    const op = fc.constantFrom(' && ', ' || ', '; ', ' | ', ' & ', '\n');
    fc.assert(
      fc.property(fc.array(fc.tuple(word, word), { minLength: 1, maxLength: 5 }), fc.array(op, { minLength: 5, maxLength: 5 }), (cmds, ops) => {
        const safe = cmds.filter(
          ([a]) =>
            ![
              'if',
              'then',
              'else',
              'elif',
              'fi',
              'for',
              'while',
              'until',
              'do',
              'done',
              'case',
              'esac',
              'function',
              'select',
              'coproc',
              'env',
              'sudo',
              'doas',
              'nohup',
              'time',
              'exec',
              'command',
              'builtin',
              'nice',
              'stdbuf',
              'timeout',
              'sh',
              'bash',
              'zsh',
              'dash',
              'ksh',
            ].includes(a),
        );
        if (safe.length === 0) return;
        const line = safe.map(([a, b], i) => `${a} ${b}${i < safe.length - 1 ? ops[i] : ''}`).join('');
        expect(parts(line)).toEqual(safe.map(([a, b]) => [a, b]));
      }),
      { seed: SEED, numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        parseCommandLine(s);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});
