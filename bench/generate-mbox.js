/**
 * A synthetic mailing-list archive shaped like real list traffic: mostly
 * single-part plain text (some quoted-printable, some UTF-8), a share of
 * multipart/alternative with HTML, patches with trailers, and Jira/GitHub
 * notification mail. Deterministic for a given count, so runs compare.
 */
const SUBJECTS = [
  (i) => `[PATCH v${(i % 4) + 1} ${(i % 7) + 1}/7] mm: fix the thing number ${i}`,
  (i) => `Re: [PATCH ${(i % 5) + 1}/5] net: dsa: tidy ${i}`,
  (i) => `[jira] [Commented] (KAFKA-${10000 + i}) Flaky test number ${i}`,
  (i) => `[GitHub] [kafka] someone commented on pull request #${i}: KAFKA-${i}: fix`,
  (i) => `Re: [VOTE] KIP-${i % 900}: Make it better`,
  (i) => `Re: How do I configure the consumer ${i}?`,
  (i) => `[DISCUSS] KIP-${i % 900}: A new idea`,
  (i) => `Re: Re: question about release ${i}`,
];

const PARAGRAPH =
  'The quick brown fox jumps over the lazy dog while the committers discuss whether the change needs a KIP or can go in as a minor fix.\n';

function body(i) {
  let text = '';
  for (let p = 0; p < 4 + (i % 6); p++) text += `${i % 3 === 0 ? '> ' : ''}${PARAGRAPH}`;
  return text;
}

function patch(i) {
  return `Fix it.\n\nSigned-off-by: Dev ${i} <dev${i}@example.org>\nReviewed-by: Rev <rev@example.org>\n---\n mm/x.c | 2 +-\n\ndiff --git a/mm/x.c b/mm/x.c\n--- a/mm/x.c\n+++ b/mm/x.c\n@@ -1,3 +1,3 @@\n-old line ${i}\n+new line ${i}\n context\n`;
}

export function generateMessage(i) {
  const subject = SUBJECTS[i % SUBJECTS.length](i);
  const date = new Date(Date.UTC(2020, 0, 1) + i * 60_000).toUTCString().replace('GMT', '+0000');
  const headers = [
    `From: Person ${i % 50} <person${i % 50}@example.org>`,
    `To: dev@kafka.apache.org`,
    `Subject: ${subject}`,
    `Date: ${date}`,
    `Message-ID: <bench-${i}@example.org>`,
    i % 2 ? `In-Reply-To: <bench-${i - 1}@example.org>` : null,
    i % 2 ? `References: <bench-${i - 2}@example.org> <bench-${i - 1}@example.org>` : null,
    'List-Id: <dev.kafka.apache.org>',
    'List-Post: <mailto:dev@kafka.apache.org>',
    'Received: from mail.example.org by relay.example.org; Mon, 1 Jan 2024 10:00:00 +0000',
    'MIME-Version: 1.0',
  ].filter(Boolean);
  const kind = i % 10;
  if (kind === 0) {
    const boundary = `b${i}`;
    headers.push(`Content-Type: multipart/alternative; boundary="${boundary}"`);
    const text = body(i);
    const html = `<html><body><p>${text.replace(/\n/g, '<br>')}</p></body></html>`;
    return `${headers.join('\n')}\n\n--${boundary}\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n${text.replace(/=/g, '=3D')}\n--${boundary}\nContent-Type: text/html; charset=utf-8\n\n${html}\n--${boundary}--\n`;
  }
  if (kind === 1) {
    headers.push('Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable');
    return `${headers.join('\n')}\n\nGr=C3=BC=C3=9Fe,\n\n${body(i).replace(/=/g, '=3D')}`;
  }
  headers.push('Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit');
  return `${headers.join('\n')}\n\n${subject.includes('[PATCH') && !subject.startsWith('Re:') ? patch(i) : `Grüße,\n\n${body(i)}`}`;
}

/** The mbox text of `count` messages. */
export function generateMbox(count) {
  const parts = [];
  for (let i = 0; i < count; i++)
    parts.push(
      `From person${i % 50}@example.org Mon Jan  1 10:00:00 2024\n${generateMessage(i).replace(/^From /gm, '>From ')}\n`,
    );
  return parts.join('\n');
}
