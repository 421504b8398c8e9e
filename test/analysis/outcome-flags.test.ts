/**
 * A retry whose only exit reads a flag that the retried operation itself sets from its outcome
 * (`transport.status = UP` on success, `DOWN` on failure): it retries until the operation
 * succeeds, so it has no bound of its own on attempts or on time. A flag set anywhere else (a
 * stop method, a timer) may be a deadline, and stays unknown.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const handWritten = (code: string) => analyse(code).filter((s) => s.library === 'hand-written');
const rulesOf = (findings: { rule: string }[]) => findings.map((f) => f.rule).sort();

const transport = (elsewhere = '') => `
  const enum Status { UP, DOWN }
  interface State { status: Status; backoff: number; queue: string[] }
  function send(body: string, state: State, { onSuccess, onFailure }: { onSuccess: () => void; onFailure: () => void }) {
    fetch('https://intake.example.com/v1/events', { method: 'PUT', body }).then((res) => {
      if (res.ok) {
        state.status = Status.UP;
        onSuccess();
      } else {
        state.status = Status.DOWN;
        onFailure();
      }
    });
  }
  function scheduleRetry(state: State) {
    if (state.status !== Status.DOWN) {
      return;
    }
    setTimeout(() => {
      send(state.queue[0], state, {
        onSuccess: () => { state.queue.shift(); state.backoff = 1000; },
        onFailure: () => {
          state.backoff = Math.min(60000, state.backoff * 2);
          scheduleRetry(state);
        },
      });
    }, state.backoff);
  }
  ${elsewhere}
  export { scheduleRetry };
`;

describe('an exit on a flag the operation sets from its outcome', () => {
  it('reads the retry as unbounded: it stops only when the operation succeeds', () => {
    const sites = handWritten(transport());
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ attempts: Infinity });
  });

  it('reports the attempts and the time', () => {
    const rules = rulesOf(lint(transport()));
    expect(rules).toContain('max-retry-attempts');
    expect(rules).toContain('max-retry-duration');
  });

  it('leaves the count unknown when something else also sets the flag (a stop may be a deadline)', () => {
    const sites = handWritten(transport('export function stop(state: State) { state.status = Status.UP; }'));
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ attempts: 'unknown' });
    expect(rulesOf(lint(transport('export function stop(state: State) { state.status = Status.UP; }')))).not.toContain('max-retry-duration');
  });

  it('leaves the count unknown when the operation sets the flag to one value only (it marks a call, not an outcome)', () => {
    const once = transport().replace('state.status = Status.DOWN;', '');
    const sites = handWritten(once);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ attempts: 'unknown' });
  });
});
