// ESLint: the recommended JavaScript and typescript-eslint rules, type-aware on the
// TypeScript sources; eslint-config-prettier last, so layout is Prettier's alone.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores([
    'dist/',
    'coverage/',
    'test/fixtures/',
    'bench/results/',
    'export/',
    '.corpus/',
    '.listminer-cache/',
    'oclif.manifest.json',
  ]),
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: globals.node },
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
  {
    rules: {
      // Mail is bytes: matching NUL and other control characters is the point of those patterns.
      'no-control-regex': 'off',
      // Spaces in patterns over YAML and mail text are its indentation, as written there.
      'no-regex-spaces': 'off',
      // Sources, drivers and their fakes implement Promise-returning interfaces; some have nothing to await.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore names what is left out on purpose (`{ key: _key, ...rest }`, `(_ctx, task)`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A caught error kept as `unknown` is thrown on unchanged; so is an AbortSignal's reason (typed any).
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // Html (src/core/render/html.ts) is escaped markup whose toString is the markup.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { from: 'lib', name: ['Error', 'URL', 'URLSearchParams'] },
            { from: 'file', name: 'Html', path: 'src/core/render/html.ts' },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringMatching) are typed any.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // bench, scripts, bin and examples are plain JavaScript, outside the TypeScript project.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  prettier,
);
