// `npm run bench` (builds first): the end-to-end benchmark, docs/performance.md.
// `npm run bench -- --classify` or `npm run bench:classify`: the classify micro benchmark.
if (process.argv.includes('--classify')) await import('./classify.js');
else await import('./end-to-end.js');
