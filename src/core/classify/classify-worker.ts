import { parentPort, workerData } from 'node:worker_threads';
import { loadSystems } from '../systems/load-systems.js';
import { classifyMessage, toStoredVerdict, type StoredVerdict } from './classify-message.js';
import { loadRuleBook, type ListContext } from './rule-set.js';

/** A batch for a worker: raw messages of one list, and whose rules to run. */
export interface WorkerRequest {
  seq: number;
  rulesSystem: string;
  context: ListContext;
  raws: Uint8Array[];
}

export interface WorkerReply {
  seq: number;
  verdicts?: StoredVerdict[];
  error?: string;
}

// Each worker compiles the rules itself from the same file the main thread validated.
const book = loadRuleBook(loadSystems((workerData as { systemsFile: string }).systemsFile));

parentPort!.on('message', async (request: WorkerRequest) => {
  try {
    const rules = book.rulesOf(request.rulesSystem);
    const verdicts: StoredVerdict[] = [];
    for (const raw of request.raws) {
      verdicts.push(toStoredVerdict(await classifyMessage(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), rules, request.context)));
    }
    parentPort!.postMessage({ seq: request.seq, verdicts } satisfies WorkerReply);
  } catch (error) {
    parentPort!.postMessage({ seq: request.seq, error: (error as Error).message } satisfies WorkerReply);
  }
});
