/**
 * Why a suite that needs real software installed from Debian (HyperKitty,
 * INN, Dovecot, Chromium) cannot run here, or undefined. The probe says what
 * is missing; under CI=true a missing package is an error, not a skip,
 * because .ci/run installs it.
 */
export function realSoftwareSkipReason(probe: () => string | undefined): string | undefined {
  const reason = probe();
  if (reason && process.env.CI === 'true') throw new Error(`${reason}; under CI=true .ci/run installs it`);
  return reason;
}
