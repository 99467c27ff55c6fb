import { parentPort, workerData } from 'node:worker_threads';
import { loadSystems } from '../systems/load-systems.js';
import { classifyMessages, toStoredVerdict, type StoredVerdict } from './classify-message.js';
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

export interface WorkerSetup {
  systemsFile: string;
  budgetMs: number;
}

// Each worker compiles the rules itself from the same file the main thread validated.
const setup = workerData as WorkerSetup;
const book = loadRuleBook(loadSystems(setup.systemsFile));

parentPort!.on('message', (request: WorkerRequest) => void answer(request));

async function answer(request: WorkerRequest): Promise<void> {
  try {
    const rules = book.rulesOf(request.rulesSystem);
    const raws = request.raws.map((raw) => Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
    const verdicts = await classifyMessages(
      raws,
      rules,
      { list: request.context, budgetMs: setup.budgetMs },
      toStoredVerdict,
    );
    parentPort!.postMessage({ seq: request.seq, verdicts } satisfies WorkerReply);
  } catch (error) {
    parentPort!.postMessage({ seq: request.seq, error: (error as Error).message } satisfies WorkerReply);
  }
}
