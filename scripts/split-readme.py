#!/usr/bin/env python3
# One-off (issue 26 §6): moves the README's manual sections into docs/ pages, one page per
# feature, and rewrites the links between them. Kept so that the move can be redone on a README
# that changed meanwhile (a merge): `python3 scripts/split-readme.py` on the old README.
# Headings are found by their text, so sections that grew or moved still split the same way.
import re
import sys

PAGES = [
    ('## Usage', 'usage.md'),
    ('## Configuration', 'configuration.md'),
    ('## The shell tool', 'shell-tool.md'),
    ('## Sandbox', 'sandbox.md'),
    ('## Editing files: `apply_patch`', 'apply-patch.md'),
    ('## MCP servers', 'mcp-servers.md'),
    ('## Hosted tools and images', 'hosted-tools.md'),
    ('## The interactive session', 'interactive.md'),
    ('## What the model is told', 'model-instructions.md'),
    ('## Plans and plan mode', 'plans.md'),
    ('## Hooks', 'hooks.md'),
    ('## Custom commands and skills', 'custom-commands.md'),
    ('## Context window', 'context-window.md'),
    ('## The terminal', 'terminal.md'),
    ('## Rollback with files (snapshots)', 'snapshots.md'),
    ('## Session state files', 'state-files.md'),
    ('## The conversation log', 'conversation-log.md'),
    ('## When things go wrong', 'troubleshooting.md'),
    ('## Limits', 'limits.md'),
]
STAY = ['## Development', '## Architecture']


def slug(title):
    s = title.strip().lower()
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


def main():
    lines = open('README.md', encoding='utf8').read().split('\n')
    starts = {}
    in_code = False
    for i, line in enumerate(lines):
        if line.startswith('```'):
            in_code = not in_code
        if not in_code and line.startswith('## '):
            starts[line.rstrip()] = i
    missing = [h for h, _ in PAGES if h not in starts]
    if missing:
        sys.exit(f'headings not found: {missing}')
    boundaries = sorted(starts.values()) + [len(lines)]
    chunks = {}
    for heading, page in PAGES:
        a = starts[heading]
        b = next(x for x in boundaries if x > a)
        chunks[page] = (a, b)
    # Which page each anchor lands on ('' = the README).
    anchor_page = {}
    in_code = False
    for i, line in enumerate(lines):
        if line.startswith('```'):
            in_code = not in_code
        m = re.match(r'^(#+) (.*)$', line)
        if in_code or not m:
            continue
        page = next((p for p, (a, b) in chunks.items() if a <= i < b), '')
        anchor_page.setdefault(slug(m.group(2)), page)

    def rewrite(text, here):
        def link(m):
            target = m.group(1)
            if target.startswith('#'):
                page = anchor_page.get(target[1:], '')
                if page == here:
                    return f']({target})'
                if here == '':
                    return f'](docs/{page}{target})' if page else f']({target})'
                return f']({page}{target})' if page else f'](../README.md{target})'
            if here == '' or re.match(r'^[a-z]+:', target):
                return m.group(0)
            if target.startswith('docs/'):
                return f']({target[5:]})'
            return f'](../{target})'
        return re.sub(r'\]\(([^)\s]+)\)', link, text)

    for page, (a, b) in chunks.items():
        body = lines[a:b]
        out = []
        in_code = False
        for line in body:
            if line.startswith('```'):
                in_code = not in_code
            out.append(line[1:] if not in_code and re.match(r'^#{2,} ', line) else line)
        text = rewrite('\n'.join(out).rstrip() + '\n', page)
        open(f'docs/{page}', 'w', encoding='utf8').write(text)
    keep = []
    moved = sorted(chunks.values())
    i = 0
    while i < len(lines):
        span = next(((a, b) for a, b in moved if a == i), None)
        if span:
            i = span[1]
            continue
        keep.append(lines[i])
        i += 1
    open('README.md', 'w', encoding='utf8').write(rewrite('\n'.join(keep), ''))


main()
