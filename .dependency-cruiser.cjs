/**
 * The import rules of listminer, checked by `npm test` (docs/architecture.md
 * draws the layers). Imports point one way:
 *   commands → cli → stages (fetch, classify, drain, registry, …)
 *     → store | archive, github → foundation (net, config, systems, locks, errors, progress, db-target)
 * and nothing imports in a circle.
 */
const STAGES = '^src/core/(pipeline|fetch|classify|drain|registry|project|verify|stats|sync|export|render)/';
const FOUNDATION = '^src/core/(net|config|systems|locks)/|^src/core/(errors|progress|db-target)[.]ts$';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'A cycle makes both modules one; split out what they share.', from: {}, to: { circular: true } },
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
    { name: 'sources-and-store-apart', severity: 'error', from: { path: '^src/core/(archive|github)/' }, to: { path: '^src/core/store/' } },
    {
      name: 'foundation-at-the-bottom',
      severity: 'error',
      comment: 'net, config, systems, locks and the error types are used by everything above and use nothing above them.',
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
