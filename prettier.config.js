// Prettier: the house style (single quotes, 120 columns, trailing commas).
export default {
  singleQuote: true,
  printWidth: 120,
  trailingComma: 'all',
  // Template literals keep their bytes: `html` and SQL templates are output, not layout.
  embeddedLanguageFormatting: 'off',
};
