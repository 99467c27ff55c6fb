import type { ArchiveItem, ArchiveSource, Month } from '../../src/core/archive/archive-source.js';
import { addMonths, monthOf } from '../../src/core/archive/month.js';

export const NOW_MONTH = monthOf(new Date());
/** The month `back` months before this one. */
export const month = (back: number): Month => addMonths(NOW_MONTH, -back);

/** A patch mail with the given Message-ID. */
export function mail(id: string, body = `body of ${id}`): Buffer {
  return Buffer.from(
    `From: Dev <dev@example.org>\nSubject: [PATCH] ${id}\nDate: Mon, 1 Jan 2024 10:00:00 +0000\nMessage-ID: <${id}>\n\n${body}\n`,
  );
}

/** An archive in memory for fetch's unit tests: months of items, and a fault to inject once. */
export class FakeSource implements ArchiveSource {
  readonly name = 'fake';
  fault?: { month: Month; afterItems: number; error: Error };
  closed = 0;
  constructor(readonly months: Map<Month, ArchiveItem[]>) {}
  async firstMonth(): Promise<Month | undefined> {
    return [...this.months.keys()].sort()[0];
  }
  async *fetchMonth(_context: unknown, m: Month): AsyncIterable<ArchiveItem> {
    let n = 0;
    for (const item of this.months.get(m) ?? []) {
      if (this.fault && this.fault.month === m && n === this.fault.afterItems) {
        const { error } = this.fault;
        this.fault = undefined;
        throw error;
      }
      n++;
      yield item;
    }
  }
  async close(): Promise<void> {
    this.closed++;
  }
}

/** Months of mail: `{ monthsBack: messages }`, each message's id made of the prefix, the month and its place. */
export function archive(spec: Record<number, number>, prefix = 'm'): Map<Month, ArchiveItem[]> {
  const months = new Map<Month, ArchiveItem[]>();
  for (const [back, count] of Object.entries(spec)) {
    months.set(
      month(Number(back)),
      Array.from({ length: count }, (_, i) => ({
        raw: mail(`${prefix}${back}-${i}@example.org`),
        sourceRef: `${back}/${i}`,
      })),
    );
  }
  return months;
}
