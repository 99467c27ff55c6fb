/**
 * The import rules of listminer, checked by `npm test` (docs/architecture.md
 * draws the layers). Imports point one way:
 *   commands → cli → stages (fetch, classify, drain, registry, …)
 *     → store | archive, github → foundation (net, config, systems, locks, errors, progress, db-target)
 * and nothing imports in a circle. Inside the store, each engine (sqlite/,
 * postgres/) is reached only through open-store.ts; inside the archive, each
 * backend (sources/) only through open-source.ts.
 */
const STAGES = '^src/core/(pipeline|fetch|classify|drain|registry|project|verify|stats|sync|export|render|people)/';
const FOUNDATION = '^src/core/(net|config|systems|locks)/|^src/core/(errors|progress|db-target)[.]ts$';
const ENGINES = '^src/core/store/(sqlite|postgres)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes both modules one; split out what they share.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-knows-no-terminal',
      severity: 'error',
      comment: 'src/core reports through events and results; the command layer draws them.',
      from: { path: '^src/core/' },
      to: { path: ['^src/(cli|commands)/', '^node_modules/(@oclif|listr2|cli-table3)/'] },
    },
    { name: 'cli-below-commands', severity: 'error', from: { path: '^src/cli/' }, to: { path: '^src/commands/' } },
    {
      name: 'store-and-archive-below-stages',
      severity: 'error',
      comment: 'The store and the sources (archives, the GitHub API) serve every stage; they know none of them.',
      from: { path: '^src/core/(store|archive|github)/' },
      to: { path: STAGES },
    },
    {
      name: 'store-and-archive-apart',
      severity: 'error',
      comment: 'A stage moves data between an archive and the store; neither knows the other.',
      from: { path: '^src/core/store/' },
      to: { path: '^src/core/(archive|github)/' },
    },
    {
      name: 'sources-and-store-apart',
      severity: 'error',
      from: { path: '^src/core/(archive|github)/' },
      to: { path: '^src/core/store/' },
    },
    {
      name: 'engines-behind-open-store',
      severity: 'error',
      comment:
        'An engine is chosen in one place: open-store.ts imports the driver the address names; nothing else reaches into an engine folder.',
      from: { path: '^src/', pathNot: ['^src/core/store/open-store[.]ts$', ENGINES] },
      to: { path: ENGINES },
    },
    {
      name: 'engines-apart',
      severity: 'error',
      comment: 'The sqlite and postgres folders mirror each other; neither imports the other.',
      from: { path: ENGINES },
      to: { path: ENGINES, pathNot: '^src/core/store/$1/' },
    },
    {
      name: 'engines-know-only-the-seam',
      severity: 'error',
      comment:
        'An engine implements sql-driver.ts; of the rest of the store it uses only the failure type and the mutex, never the Store or a records class.',
      from: { path: ENGINES },
      to: { path: '^src/core/store/[^/]+$', pathNot: '^src/core/store/(sql-driver|store-failure|mutex)[.]ts$' },
    },
    {
      name: 'backends-behind-open-source',
      severity: 'error',
      comment: 'A backend is loaded in one place: open-source.ts maps each backend name to its module in sources/.',
      from: { path: '^src/', pathNot: ['^src/core/archive/open-source[.]ts$', '^src/core/archive/sources/'] },
      to: { path: '^src/core/archive/sources/' },
    },
    {
      name: 'foundation-at-the-bottom',
      severity: 'error',
      comment:
        'net, config, systems, locks and the error types are used by everything above and use nothing above them.',
      from: { path: FOUNDATION },
      to: { path: [STAGES, '^src/core/(store|archive|github)/', '^src/(cli|commands)/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: ['^src/', '^node_modules/'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
