import { corpusMailFiles, corpusMessages } from './test/helpers/corpus-mail.js';
import { parseEnvelope } from './src/core/classify/parse-envelope.js';
const seen = new Set<string>();
for (const file of corpusMailFiles()) {
  if (!/ponymail|james|perceval|hyperkitty|b4|patchwork|public-inbox|notmuch/.test(file)) continue;
  for (const raw of corpusMessages(file)) {
    const e = await parseEnvelope(raw);
    if (!e.subject || seen.has(e.subject)) continue;
    seen.add(e.subject);
    console.log(JSON.stringify([e.subject, `${e.fromName ?? ''} <${e.fromAddress ?? ''}>`, e.listAddress ?? e.listId ?? '', file.split('/')[0]]));
  }
}
