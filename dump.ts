import { corpusMailFiles, corpusMessages } from './test/helpers/corpus-mail.js';
import { parseEnvelope } from './src/core/classify/parse-envelope.js';
for (const folder of process.argv.slice(2)) for (const file of corpusMailFiles(folder)) {
  const msgs = corpusMessages(file);
  const e = await parseEnvelope(msgs[0]!);
  console.log(file.replace(/^.*\/(?=[^/]+\/[^/]+$)/, ''), msgs.length, JSON.stringify(e.subject), JSON.stringify(e.fromName), e.fromAddress, JSON.stringify(e.body.slice(0, 90)));
}
