import { readFileSync } from 'node:fs';
import { fixturePath } from './mail-files.js';
import { send, sendCutOff, startArchiveServer, type ArchiveServer } from './archive-server.js';

/** A month as Pony Mail's mbox.lua hands it over: six messages of users@ponymail.apache.org. */
export const PONY_MONTH_FILE = fixturePath('ponymail/users_ponymail_apache_org_2022-01.mbox');

/**
 * A Pony Mail Foal API as lists.apache.org answers it, for a few lists.
 * users@ponymail.apache.org holds January 2022 (a month download written as
 * mbox.lua writes one); other months are empty; some months misbehave on purpose.
 */
export function startPonyMailServer(): Promise<ArchiveServer> {
  const month = readFileSync(PONY_MONTH_FILE);
  let busy = 0;
  return startArchiveServer((url, response) => {
    const params = url.searchParams;
    switch (url.pathname) {
      case '/api/preferences.lua':
        return send(
          response,
          200,
          JSON.stringify({
            login: {},
            versions: { foal: '0.1.0' },
            lists: {
              'kafka.apache.org': { dev: 98231, users: 40122, commits: 120031, jira: 60012 },
              'ponymail.apache.org': { users: 812, dev: 4011 },
              'apache.org': { announce: 3001 },
            },
          }),
          { 'content-type': 'application/json' },
        );
      case '/api/stats.lua': {
        // Only the cheap one-day window is served: a wider one is a mistake.
        if (params.get('d') !== 'lte=1d') return send(response, 400, 'too wide a window');
        if (params.get('list') === 'users' && params.get('domain') === 'ponymail.apache.org') {
          return send(
            response,
            200,
            JSON.stringify({ firstYear: 2016, lastYear: 2022, firstMonth: 5, lastMonth: 1, hits: 0, emails: [] }),
          );
        }
        if (params.get('domain') === 'nowhere.example.org') return send(response, 404, 'not found');
        return send(
          response,
          200,
          JSON.stringify({ firstYear: null, lastYear: null, firstMonth: null, lastMonth: null, hits: 0, emails: [] }),
        );
      }
      case '/api/mbox.lua': {
        const key = `${params.get('list')}@${params.get('domain')}/${params.get('date')}`;
        if (key === 'users@ponymail.apache.org/2022-01')
          return send(response, 200, month, { 'content-type': 'application/mbox' });
        if (key === 'users@ponymail.apache.org/2022-02')
          return sendCutOff(response, month, Math.floor(month.length / 2));
        if (key === 'users@ponymail.apache.org/2022-03') return send(response, 502, 'bad gateway');
        if (key === 'users@ponymail.apache.org/2022-04') {
          busy++;
          return busy % 2 === 1 ? send(response, 429, 'slow down', { 'retry-after': '2' }) : send(response, 200, month);
        }
        if (key === 'users@ponymail.apache.org/2022-06') {
          // Half the month, then nothing more until the client goes away.
          response.writeHead(200, { 'content-length': String(month.length) });
          return void response.write(month.subarray(0, Math.floor(month.length / 2)));
        }
        if (key === 'users@ponymail.apache.org/2022-05')
          return send(response, 429, 'slow down', { 'retry-after': '7200' });
        return send(response, 404, 'no mail');
      }
      default:
        return send(response, 404, 'not found');
    }
  });
}
