// The front matter subset command and skill files use, on the shapes real files have.
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from './front-matter.ts';

describe('parseFrontMatter', () => {
  it('reads key: value lines (quoted or not) and returns the body after the closing ---', () => {
    const r = parseFrontMatter('\uFEFF---\r\nname: release\r\ndescription: "Cut a release: bump, tag"\r\nallowed: \'x\'\r\n---\r\nStep one.\r\n');
    expect(r.fields).toEqual({ name: 'release', description: 'Cut a release: bump, tag', allowed: 'x' });
    expect(r.body).toBe('Step one.\n');
  });

  it('has no front matter without an opening or a closing ---; ignores lines that are not key: value', () => {
    expect(parseFrontMatter('name: x\nbody')).toEqual({ fields: {}, body: 'name: x\nbody' });
    expect(parseFrontMatter('---\nname: x\nno end')).toEqual({ fields: {}, body: '---\nname: x\nno end' });
    expect(parseFrontMatter('---\n- a list\nname: y\n---')).toEqual({ fields: { name: 'y' }, body: '' });
  });
});
