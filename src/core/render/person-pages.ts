import type { RenderPerson, RenderRecords } from '../store/render-records.js';
import { callNumber } from './call-number.js';
import { html, page, showDate } from './html.js';
import { compareText, type ListSummary } from './site-writer.js';
import { paths, UNDATED, type Thread } from './thread-model.js';

/** One message on a person's page. */
export interface PersonMessage {
  list: ListSummary;
  call: string;
  subject: string | null;
  sentAt: string | null;
}

interface SitePerson {
  call: string;
  person: RenderPerson;
  messages: PersonMessage[];
}

/**
 * The people of the site (docs/people.md): who sent the mail of every list
 * rendered into it, and the page of each. A person's address in the site is
 * the call number of the address its row was made for, never its row id.
 */
export class SitePeople {
  private readonly bySender = new Map<number, SitePerson | null>();

  /** Reads the people behind these senders (sender_id) that are not known yet. */
  async learn(records: RenderRecords, senderIds: Iterable<number | null>): Promise<void> {
    const unknown = new Set<number>();
    for (const id of senderIds) if (id !== null && !this.bySender.has(id)) unknown.add(id);
    if (unknown.size === 0) return;
    const people = await records.people([...unknown]);
    for (const id of unknown) {
      const person = people.get(id);
      const key = person?.email?.toLowerCase() ?? person?.addresses[0];
      this.bySender.set(id, person && key ? { call: callNumber('people', key), person, messages: [] } : null);
    }
  }

  /** The page of a sender's person, from the site's root. */
  readonly pageOf = (senderId: number | null): string | undefined => {
    const person = senderId === null ? undefined : this.bySender.get(senderId);
    return person ? paths.person(person.call) : undefined;
  };

  /** Adds a list's mail to its senders' pages. */
  addList(list: ListSummary, threads: readonly Thread[]): void {
    for (const thread of threads) {
      for (const { item } of thread.tree) {
        const person = item.senderId === null ? undefined : this.bySender.get(item.senderId);
        person?.messages.push({ list, call: item.call, subject: item.subject, sentAt: item.sentAt });
      }
    }
  }

  /** Adds one message to its sender's page (a sender learnt before). */
  addMessage(senderId: number, message: PersonMessage): void {
    this.bySender.get(senderId)?.messages.push(message);
  }

  /** Every person's page that has messages: [path, content]. */
  *pages(): Generator<[string, string]> {
    for (const person of this.bySender.values()) {
      if (person && person.messages.length) yield [paths.person(person.call), personPage(person)];
    }
  }
}

const monthOf = (sentAt: string | null) => (sentAt ? sentAt.slice(0, 7) : UNDATED);

/** A person: its addresses, the lists it writes to, and its messages month by month, latest first. */
function personPage(p: SitePerson): string {
  const messages = [...p.messages].sort(
    (a, b) =>
      compareText(b.sentAt ?? '', a.sentAt ?? '') ||
      compareText(a.list.name, b.list.name) ||
      compareText(a.call, b.call),
  );
  const lists = new Map<ListSummary, PersonMessage[]>();
  const months = new Map<string, PersonMessage[]>();
  for (const m of messages) {
    for (const [groups, key] of [
      [lists, m.list],
      [months, monthOf(m.sentAt)],
    ] as const) {
      const group = (groups as Map<typeof key, PersonMessage[]>).get(key);
      if (group) group.push(m);
      else (groups as Map<typeof key, PersonMessage[]>).set(key, [m]);
    }
  }
  const listRows = [...lists]
    .sort(([a, am], [b, bm]) => bm.length - am.length || compareText(a.name, b.name) || compareText(a.system, b.system))
    .map(([list, mail]) => {
      const dated = mail.filter((m) => m.sentAt);
      return html`<tr><td><a href="../../lists/${list.slug}/index.html">${list.name}</a></td><td class="n">${mail.length}</td><td>${monthOf(dated.at(-1)?.sentAt ?? null)}</td><td>${monthOf(dated[0]?.sentAt ?? null)}</td></tr>`;
    });
  const name = p.person.name || p.person.addresses[0] || p.person.email || '(no name)';
  const monthRows = [...months].map(
    ([month, mail]) => html`<tr><td><a href="#${month}">${month}</a></td><td class="n">${mail.length}</td></tr>`,
  );
  const monthSections = [...months].map(
    ([month, mail]) => html`<h3 id="${month}">${month}</h3>
<ul class="mail">${mail.map((m) => html`<li><a href="../../${paths.message(m.call)}">${m.subject || '(no subject)'}</a> <span class="when">${showDate(m.sentAt)}</span> · ${m.list.name}</li>`)}</ul>`,
  );
  return page({
    title: name,
    root: '../../',
    body: html`<h1>${name}</h1>
<p>${messages.length} messages · ${p.person.addresses.length === 1 ? 'address' : 'addresses'}: ${p.person.addresses.map((a, i) => html`${i ? ', ' : ''}<code>${a}</code>`)}</p>
<h2>Lists</h2>
<table><thead><tr><th>list</th><th>messages</th><th>first month</th><th>last month</th></tr></thead><tbody>${listRows}</tbody></table>
<h2>Messages by month</h2>
<table><thead><tr><th>month</th><th>messages</th></tr></thead><tbody>${monthRows}</tbody></table>
${monthSections}`,
  });
}
