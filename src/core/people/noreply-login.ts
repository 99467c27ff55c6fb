/**
 * The GitHub user a noreply address names: `ID+login@users.noreply.github.com`
 * (since 2017) or `login@users.noreply.github.com` (before).
 */
export function noreplyLogin(address: string): { login: string; githubId: number | null } | undefined {
  const match = /^(?:(\d+)\+)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)@users\.noreply\.github\.com$/i.exec(address);
  if (!match) return undefined;
  return { login: match[2]!.toLowerCase(), githubId: match[1] ? Number(match[1]) : null };
}
