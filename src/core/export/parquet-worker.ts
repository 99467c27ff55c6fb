import { receiveMessageOnPort, workerData, parentPort, type MessagePort } from 'node:worker_threads';
import {
  BIGINT,
  BOOLEAN,
  DuckDBInstance,
  DuckDBTableFunction,
  TIMESTAMPTZ,
  timestampTZValue,
  VARCHAR,
} from '@duckdb/node-api';
import type { DuckDBDataChunk } from '@duckdb/node-api';
import type { Cell, Column, ColumnType } from './export-columns.js';

/** What the export's thread sends, in this order for each file: open, rows…, then end or abort; close at the very end. */
export type ParquetRequest =
  | { type: 'open'; file: number; path: string; columns: Column[] }
  | { type: 'rows'; file: number; rows: Cell[][] }
  | { type: 'end'; file: number }
  | { type: 'abort'; file: number }
  | { type: 'close' };

/** Sent once the COPY of a file has ended: written whole, cut short by abort, or failed. */
export interface ParquetReply {
  file: number;
  error?: string;
}

export interface ParquetWorkerData {
  port: MessagePort;
  /** [0]: requests sent, [1]: requests taken; the worker sleeps on [0] while nothing waits. */
  counters: Int32Array;
  memoryLimit: string;
  rowGroupBytes: number;
  tempDirectory: string;
}

const SOURCE = 'listminer_rows';
/** DuckDB's vector size: the most rows a chunk holds. */
const CHUNK_ROWS = 2048;
/** A chunk also ends past this many bytes of cells, so a run of large bodies stays small. */
const CHUNK_BYTES = 1024 * 1024;
const TYPES = { BIGINT, BOOLEAN, TIMESTAMPTZ, VARCHAR } satisfies Record<ColumnType, unknown>;

const { port, counters, memoryLimit, rowGroupBytes, tempDirectory } = workerData as ParquetWorkerData;
let taken = 0;

/**
 * The next request. Blocks the thread while there is none: DuckDB calls the
 * source below synchronously and waits for its rows, which the export's
 * thread is still reading from the store.
 */
function take(wait: boolean): ParquetRequest | undefined {
  for (;;) {
    const received = receiveMessageOnPort(port);
    if (received) {
      Atomics.store(counters, 1, ++taken);
      Atomics.notify(counters, 1);
      return received.message as ParquetRequest;
    }
    if (!wait) return undefined;
    Atomics.wait(counters, 0, taken);
  }
}

/** The file being written and the rows handed over but not yet given to DuckDB. */
let current: { columns: Column[]; rows: Cell[][]; at: number; ended: boolean } | undefined;

/** Fills one chunk of the COPY's source; a chunk of no rows ends the file. */
function fillChunk(output: DuckDBDataChunk): void {
  const file = current!;
  const rows: Cell[][] = [];
  let bytes = 0;
  while (rows.length < CHUNK_ROWS && bytes < CHUNK_BYTES && !file.ended) {
    if (file.at === file.rows.length) {
      // Waits only for a chunk's first row: DuckDB may have what is there already.
      const request = take(rows.length === 0);
      if (!request) break;
      if (request.type === 'rows') {
        file.rows = request.rows;
        file.at = 0;
      } else file.ended = true;
      continue;
    }
    const row = file.rows[file.at++]!;
    for (const cell of row) bytes += typeof cell === 'string' ? cell.length : 8;
    rows.push(row);
  }
  output.rowCount = rows.length;
  file.columns.forEach((column, index) => {
    // Each column's vector takes the value type of its column; toDuckDB makes that value.
    const vector = output.getColumnVector(index) as unknown as {
      setItem(row: number, value: unknown): void;
      flush(): void;
    };
    rows.forEach((row, rowIndex) => vector.setItem(rowIndex, toDuckDB(row[index] ?? null, column.type)));
    vector.flush();
  });
}

function toDuckDB(cell: Cell, type: ColumnType): unknown {
  if (cell === null) return null;
  switch (type) {
    case 'BIGINT':
      return BigInt(cell);
    case 'TIMESTAMPTZ':
      return timestampTZValue(BigInt(Date.parse(cell as string)) * 1000n);
    case 'BOOLEAN':
    case 'VARCHAR':
      return cell;
  }
}

const instance = await DuckDBInstance.create(':memory:', {
  memory_limit: memoryLimit,
  temp_directory: tempDirectory,
  threads: '1',
  // DuckDB's allocator keeps freed memory for reuse until this much is
  // outstanding (128 MB by default); its background thread hands it back
  // between tasks. Measured: some 5-10 MB lower peaks.
  allocator_flush_threshold: '4MB',
  allocator_background_threads: 'true',
  // Lets ROW_GROUP_SIZE_BYTES bound the row groups. One thread reading one
  // source keeps the rows in the order they were sent all the same.
  preserve_insertion_order: 'false',
});
const connection = await instance.connect();
connection.registerTableFunction(
  DuckDBTableFunction.create({
    name: SOURCE,
    bindFunction: (info) => current!.columns.forEach((column) => info.addResultColumn(column.name, TYPES[column.type])),
    initFunction: () => {},
    mainFunction: (_info, output) => fillChunk(output),
  }),
);

for (;;) {
  const request = take(true)!;
  if (request.type === 'close') break;
  // Rows, end or abort of a file whose COPY already failed: the export's thread learns it from the reply.
  if (request.type !== 'open') continue;
  current = { columns: request.columns, rows: [], at: 0, ended: false };
  const reply: ParquetReply = { file: request.file };
  try {
    await connection.run(
      `COPY (SELECT * FROM ${SOURCE}()) TO '${request.path.replaceAll("'", "''")}' (FORMAT parquet, ROW_GROUP_SIZE 122880, ROW_GROUP_SIZE_BYTES ${rowGroupBytes})`,
    );
  } catch (error) {
    reply.error = error instanceof Error ? error.message : String(error);
  }
  current = undefined;
  parentPort!.postMessage(reply);
}
connection.closeSync();
instance.closeSync();
