// Preloaded (`node --import`) into a one-shot by bench/oneshot-profile.mjs: records when the
// phases of a one-shot begin, on the process's own clock (performance.now() counts from process
// start), and writes them to $AGENTX_PHASE_TRACE as JSON at exit. Bench only; never shipped.
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

/** @type {Record<string, number>} */
const marks = { preload: performance.now() };
const first = (name) => {
  if (marks[name] === undefined) marks[name] = performance.now();
};

diagnostics.subscribe('http.client.request.start', (message) => {
  const { request } = /** @type {{ request: import('node:http').ClientRequest }} */ (message);
  first('requestStart');
  const onSocket = (socket) => {
    if (socket.connecting) socket.once('connect', () => first('connected'));
    else first('connected');
  };
  if (request.socket) onSocket(request.socket);
  else request.once('socket', onSocket);
  request.once('response', (res) => {
    first('headers');
    res.once('end', () => {
      marks.responseEnd = performance.now();
    });
  });
});

process.once('exit', () => {
  marks.exit = performance.now();
  if (process.env.AGENTX_PHASE_TRACE) writeFileSync(process.env.AGENTX_PHASE_TRACE, JSON.stringify(marks));
});
