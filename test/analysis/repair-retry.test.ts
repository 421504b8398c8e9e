/**
 * "Repair, then try again" (issue 13 item 5): a failure handler with no count of attempts that
 * awaits a repair (a token refresh, a one-time-password prompt) before calling once more is no
 * transient-failure retry, so neither backoff nor jitter is demanded of it
 * (more shapes in repair-and-wait-free.test.ts).
 */
import backoff from '../../src/rules/require-exponential-backoff.js';
import jitter from '../../src/rules/require-jitter.js';
import { run } from '../helpers/rule-tester.js';

const refresh = `export async function call(req: Req, refreshed = false): Promise<Res> {
  try {
    return await send(req);
  } catch (e) {
    if (!refreshed && isUnauthorized(e)) {
      await tokens.invalidate();
      return call(req, true);
    }
    throw e;
  }
}`;

const otp = `export function registryFetch(uri: string, opts: Opts): Promise<Res> {
  return send(uri, opts).catch(async (er: Err) => {
    if (er.code === 'EOTP' && !opts.otp) {
      const otp = await opts.otpPrompt();
      return registryFetch(uri, { ...opts, otp });
    }
    throw er;
  });
}`;

// The same recursion with nothing awaited in between does retry at once.
const immediate = `export async function call(req: Req, n = 0): Promise<Res> {
  try {
    return await send(req);
  } catch (e) {
    if (n < 2) return call(req, n + 1);
    throw e;
  }
}`;

run('require-exponential-backoff', backoff, {
  valid: [refresh, otp],
  invalid: [{ code: immediate, errors: [{ messageId: 'noDelay' }] }],
});

run('require-jitter', jitter, {
  valid: [refresh, otp],
  invalid: [{ code: immediate, errors: [{ messageId: 'noJitter' }] }],
});
