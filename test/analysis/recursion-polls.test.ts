/**
 * A recursion that calls itself again both after a failure (a retry) and on a successful answer
 * that is not the one it waits for (a poll): the calls after a failure are its retry, judged
 * alone; the poll is not judged. Pure polling and periodic jobs stay silent.
 */
import { describe, expect, it } from 'vitest';
import { analyse, lint } from '../helpers/model.js';

const handWritten = (code: string) => analyse(code).filter((s) => s.library === 'hand-written');
const rulesOf = (findings: { rule: string }[]) => findings.map((f) => f.rule).sort();

const retryAndPoll = `
  export function load(channel: string, untilLive: boolean, send: (r: unknown) => void) {
    function fetchWithRetry(triesLeft: number) {
      fetch('https://example.com/' + channel)
        .then((response) => response.text())
        .then((text) => {
          if (untilLive && !text.includes('live') && triesLeft > 1) {
            setTimeout(() => fetchWithRetry(triesLeft - 1), 1000);
          } else {
            send({ text });
          }
        })
        .catch(() => {
          if (triesLeft > 1) setTimeout(() => fetchWithRetry(triesLeft - 1), 1000);
          else send({ text: null });
        });
    }
    fetchWithRetry(3);
  }
`;

describe('a recursion that retries after a failure and polls on success', () => {
  it('reads the calls again after a failure as the retry, bounded by the counter they share with the poll', () => {
    const sites = handWritten(retryAndPoll);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ label: 'recursive fetchWithRetry()', attempts: 3, growth: 'constant', jitter: false });
  });

  it('reports the retry\'s fixed wait, and nothing about the poll', () => {
    expect(rulesOf(lint(retryAndPoll))).toEqual(['require-exponential-backoff', 'require-jitter']);
  });

  it('leaves pure polling alone: no call again follows a failure', () => {
    const code = `
      export function waitForJob(id: string, left = 10) {
        fetch('/jobs/' + id).then((r) => r.json()).then((job) => {
          if (job.state !== 'done' && left > 0) setTimeout(() => waitForJob(id, left - 1), 1000);
        }).catch((e) => console.error(e));
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });

  it('leaves a periodic job alone: it calls itself again on success whatever the answer', () => {
    const code = `
      export function tick() {
        fetch('/status').then((r) => r.json()).then((s) => {
          render(s);
          setTimeout(tick, 1000);
        }).catch(() => setTimeout(tick, 1000));
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });

  it('leaves a periodic job with a stop switch alone: its calls again after a failure have no counter', () => {
    const code = `
      let running = true;
      export function tick() {
        fetch('/status').then((r) => r.json()).then((s) => {
          render(s);
          if (running) setTimeout(tick, 1000);
        }).catch(() => setTimeout(tick, 1000));
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });

  it('leaves the next item of a stack alone: the call after a failure moves on, it counts nothing (tslib\'s disposal loop)', () => {
    const code = `
      export function disposeAll(env: { stack: Resource[] }) {
        let r: Resource | undefined;
        let s = 0;
        function next(): Promise<void> | void {
          while ((r = env.stack.pop())) {
            try {
              if (!r.async && s === 1) return (s = 0), env.stack.push(r), Promise.resolve().then(next);
              const result = r.dispose.call(r.value);
              if (r.async) return (s |= 2), Promise.resolve(result).then(next, (e) => { fail(e); return next(); });
              s |= 1;
            } catch (e) {
              fail(e);
            }
          }
        }
        return next();
      }
    `;
    expect(handWritten(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });

  it('leaves a worker\'s poll loop alone: after an error it polls again on the same interval, with no count (graphile-worker\'s doNext)', () => {
    const code = `
      let timer: ReturnType<typeof setTimeout> | null = null;
      let active = true;
      let contiguousErrors = 0;
      const doNext = async (first = false): Promise<void> => {
        let job;
        try {
          job = await getJob(first);
        } catch (err) {
          if (continuous) {
            contiguousErrors++;
            log(err, contiguousErrors);
            if (active) timer = setTimeout(() => doNext(), pollInterval);
            return;
          }
          throw err;
        }
        contiguousErrors = 0;
        if (!job) {
          if (continuous && active) {
            if (again) doNext();
            else timer = setTimeout(() => doNext(), pollInterval);
          }
          return;
        }
        await run(job);
        doNext();
      };
      doNext(true);
    `;
    expect(handWritten(code)).toHaveLength(0);
    expect(lint(code)).toEqual([]);
  });
});
