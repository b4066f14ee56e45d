#!/usr/bin/env node
/**
 * Claim fan-out benchmark: five fake sources on 127.0.0.1 (Wikipedia, Fact Check Tools, Semantic
 * Scholar, GDELT, SearXNG), each answering after 300 ms in its documented format; one claim over
 * all five through the BUILT engine (dist/). Goal: ≤ 400 ms per claim, i.e. the sources are asked
 * in parallel and the claim costs about as much as the slowest source, not the sum (1.5 s).
 *
 *   npx tsc -p tsconfig.build.json && node bench/claim.mjs [--runs 10] [--delay 300]
 */
import { createServer } from 'node:http';

const args = process.argv.slice(2);
const num = (name, d) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const RUNS = num('--runs', 10);
const DELAY = num('--delay', 300);

const { createEngine } = await import(new URL('../dist/engine/index.js', import.meta.url).href);
const { createHttpClient } = await import(new URL('../dist/sources/http.js', import.meta.url).href);

const bodies = {
  wikipedia: () => ({
    batchcomplete: true,
    query: { pages: [{ pageid: 1, ns: 0, title: 'Eiffel Tower', index: 1, extract: 'The Eiffel Tower was built from 1887 to 1889 by Gustave Eiffel.', fullurl: 'https://en.wikipedia.org/wiki/Eiffel_Tower', touched: '2024-05-01T10:00:00Z' }] },
  }),
  fact: () => ({
    claims: [{ text: 'The Eiffel Tower was built in 1889', claimant: 'posts', claimReview: [{ publisher: { name: 'PolitiFact', site: 'politifact.com' }, url: 'https://www.politifact.com/x', title: 'Eiffel', reviewDate: '2024-03-01T00:00:00Z', textualRating: 'True', languageCode: 'en' }] }],
  }),
  s2: () => ({ total: 1, offset: 0, data: [{ paperId: 'p1', url: 'https://www.semanticscholar.org/paper/p1', title: 'Eiffel Tower history', abstract: 'Completed in 1889.', tldr: null, year: 2015, citationCount: 40 }] }),
  gdelt: () => ({ articles: [{ url: 'https://www.reuters.com/eiffel', title: 'Eiffel Tower, built in 1889, turns 135', seendate: '20240331T120000Z', domain: 'reuters.com', language: 'English', sourcecountry: 'France' }] }),
  web: () => ({ query: 'q', number_of_results: 1, results: [{ url: 'https://www.toureiffel.paris/history', title: 'History', content: 'Built between 1887 and 1889.', engine: 'ddg' }], answers: [], infoboxes: [], suggestions: [], unresponsive_engines: [] }),
};

async function serve(body) {
  const server = createServer((req, res) => {
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body()));
    }, DELAY);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

const fakes = Object.fromEntries(await Promise.all(Object.entries(bodies).map(async ([k, b]) => [k, await serve(b)])));
const config = {
  sources: {
    wikipedia: { base_url: `${fakes.wikipedia.url}/w/api.php` },
    google_fact_check: { api_key: 'bench', base_url: fakes.fact.url },
    semantic_scholar: { base_url: fakes.s2.url },
    gdelt: { base_url: fakes.gdelt.url },
    web: { provider: 'searxng', base_url: fakes.web.url },
  },
};
// No cache and no rate limits: every run really waits on all five sources.
const http = createHttpClient({ userAgent: 'verity-bench/0 (+mailto:bench@example.org)' });
const engine = createEngine({ clock: { now: () => new Date() }, config, http, fetchInput: async () => { throw new Error('unused'); } });

const claim = 'The Eiffel Tower was built in 1889 by Gustave Eiffel';
await engine.verifyClaim({ claim }); // warm-up: module loading, connection set-up
const times = [];
let last;
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  last = await engine.verifyClaim({ claim });
  times.push(performance.now() - t);
}
for (const f of Object.values(fakes)) f.server.close();

times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const p95 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)];
const row = (k, v) => console.log(`${k.padEnd(34)}${String(v).padStart(12)}`);
console.log(`claim over 5 sources, each answering after ${DELAY} ms (${RUNS} runs)`);
row('median ms', median.toFixed(1));
row('p95 ms', p95.toFixed(1));
row('max ms', times.at(-1).toFixed(1));
row('ratio median / slowest source', (median / DELAY).toFixed(2));
row('sequential would be ms', 5 * DELAY);
row('verdict / evidence items', `${last.verdict} / ${last.evidence.length}`);
row('goal ≤ 400 ms', median <= 400 ? 'met' : 'MISSED');
if (last.warnings) console.log('warnings:', last.warnings);
