// Reads a Chrome trace with the trace engine of Chrome DevTools' Performance panel (npm
// package @paulirish/trace_engine, the panel's own parser) and prints what it made of it as
// JSON: {"threads":[{"pid","tid","name","entries"}],"entries":N,"flows":N,"flow_events":N}
// ("flows" bound to slices at both ends; "flow_events" = their bound events).
// Usage: node tests/profiler/devtools_trace_check.mjs TRACE.json TRACE_ENGINE_DIR
// where TRACE_ENGINE_DIR is the installed package, e.g. after
//   npm install --prefix build/tools-node @paulirish/trace_engine@0.0.65
// build/tools-node/node_modules/@paulirish/trace_engine. Exit 1 when it cannot parse.
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [trace, engineDir] = process.argv.slice(2);
if (!trace || !engineDir) {
  console.error('usage: node devtools_trace_check.mjs TRACE.json TRACE_ENGINE_DIR');
  process.exit(2);
}
try {
  const engine = await import(pathToFileURL(path.join(engineDir, 'analyze-trace.mjs')).href);
  const {parsedTrace} = await engine.analyzeTrace(trace);
  const data = parsedTrace.data;
  const threads = [];
  let entries = 0;
  for (const [pid, proc] of data.Renderer.processes) {
    for (const [tid, thread] of proc.threads) {
      const n = thread.entries ? thread.entries.length : 0;
      threads.push({pid, tid, name: thread.name ?? '', entries: n});
      entries += n;
    }
  }
  const flows = data.Flows.flows;
  const flowEvents = flows.reduce((sum, f) => sum + f.length, 0);
  console.log(JSON.stringify({threads, entries, flows: flows.length, flow_events: flowEvents}));
} catch (e) {
  console.log(JSON.stringify({error: String(e && e.stack || e)}));
  process.exit(1);
}
