// A child process of log-prune.test.ts (bundled by it with esbuild, run with plain node): one
// "session" appending a chain of exchanges to a conversation log it shares with other such
// processes, with a tiny prune limit so that prunes happen all the time, each by whichever
// process's append crossed the limit. After each append it publishes its head the way a state
// file does — written (atomically) after the record it points at — and every process's pins are
// all the published heads, as the real pins are the session files (store/log-pins.ts). Then it
// prints the id on stdout, with the milliseconds from the record's time stamp to its head's
// publication: a printed id was appended, fsync'd and published. Every <compact
// every>-th exchange answers with a compaction item, so a replay (and what a prune must keep of a
// branch) starts there.
//
// argv: <log path> <heads dir> <name> <records> <prune limit bytes> <bytes per message> <compact every> <grace ms>
import { readdirSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConversationLog } from '../../../src/store/log/conversation-log.ts';

const [path = '', headsDir = '', name = '', records = '0', limit = '0', size = '0', every = '8', grace = '1000'] = process.argv.slice(2);

// A grace of 1 s for records not yet pinned (the product's is 10 minutes): the writers publish a
// head within milliseconds of its append, and with a longer one nothing here would ever be dropped.
const log = new ConversationLog(path, () => {}, { pruneAtBytes: Number(limit), pinGraceMs: Number(grace) });
log.pinWith(() => {
  const heads: string[] = [];
  for (const file of readdirSync(headsDir)) {
    // A temporary file is a head being published: its record is pinned by the last published one's branch anyway.
    if (file.includes('.tmp')) continue;
    heads.push(readFileSync(join(headsDir, file), 'utf8'));
  }
  return heads;
});

const compactEvery = Number(every);
let prev: string | null = null;
for (let i = 0; i < Number(records); i++) {
  const id = `${name}-${i}`;
  const stamped = Date.now();
  log.append({
    prev,
    response_id: id,
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: `${id} ${'x'.repeat(Number(size))}` }] }],
    output:
      i % compactEvery === compactEvery - 1
        ? [{ type: 'compaction', encrypted_content: `summary up to ${id}` }]
        : [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${id}` }] }],
    stored: true,
    at: new Date(stamped).toISOString(),
  });
  const tmp = join(headsDir, `${name}.tmp`);
  writeFileSync(tmp, id);
  renameSync(tmp, join(headsDir, name));
  writeSync(1, `${id} ${Date.now() - stamped}\n`);
  prev = id;
}
writeSync(1, `prunes ${log.stats.prunes ?? 0} reappends ${log.stats.reappends ?? 0}\n`);
