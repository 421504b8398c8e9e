import { getRetryModel } from '../analysis/index.js';
import { formatDuration, formatWaits, scheduleWaits } from '../analysis/fix-plan.js';
import { describeEdits, disableSuggestion, scheduleSuggestion } from '../analysis/fixes.js';
import { attemptTimeoutsMs, leastWorstCaseMs, worstCaseDurationMs, worstCaseWithLayers } from '../analysis/schedule.js';
import type { RetrySite } from '../analysis/model.js';
import { isKnown } from '../analysis/eval/values.js';
import { IN_MEMORY_MS, QUEUE_MS } from '../shared/guide-limits.js';
import { createRule } from '../util/create-rule.js';

type Options = [{ maxMs?: number; queueMs?: number }];
type MessageIds = 'tooLong' | 'needsQueue' | 'endless' | 'timeoutsTooLong' | 'knownWaitsTooLong' | 'fitBudget' | 'dropInner';

export default createRule<Options, MessageIds>({
  name: 'max-retry-duration',
  meta: {
    type: 'problem',
    docs: {
      description: 'Enforce a bound on the worst-case time a retry spends in memory',
      recommended: 'recommended',
      guideRules: ['R-RES-RE-4', 'R-RES-RE-5'],
    },
    hasSuggestions: true,
    schema: [
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          maxMs: {
            type: 'number',
            minimum: 1,
            description: 'Largest allowed worst-case in-memory retry time in milliseconds (waits plus known per-attempt timeouts).',
          },
          queueMs: {
            type: 'number',
            minimum: 1,
            description: 'Above this many milliseconds the message insists on a durable task queue with a database-driven scheduler.',
          },
        },
      },
    ],
    messages: {
      tooLong:
        '{{label}} can spend up to {{duration}} retrying in memory{{schedule}}, above {{max}} (R-RES-RE-4). Use fewer attempts or shorter waits; a failure that lasts longer belongs in a durable task queue{{noFix}}.',
      needsQueue:
        '{{label}} can spend up to {{duration}} retrying in memory{{schedule}}, holding a worker the whole time (R-RES-RE-4). Move this work to a durable task queue polled by a database-driven scheduler (R-RES-RE-5){{noFix}}.',
      endless:
        '{{label}} retries in memory with no end{{schedule}}, holding a worker for as long as the failure lasts (R-RES-RE-4). Move this work to a durable task queue polled by a database-driven scheduler (R-RES-RE-5){{noFix}}.',
      timeoutsTooLong:
        '{{label}} can spend at least {{duration}} retrying in memory ({{attempts}} attempts of up to {{timeout}} each, before any wait), above {{max}} (R-RES-RE-4). Use fewer attempts or a shorter timeout; a failure that lasts longer belongs in a durable task queue.',
      knownWaitsTooLong:
        '{{label}} can spend at least {{duration}} retrying in memory ({{attempts}} attempts, waits {{waits}} on the failures whose wait is known{{timeouts}}), above {{max}} (R-RES-RE-4). Use fewer attempts or shorter waits; a failure that lasts longer belongs in a durable task queue.',
      fitBudget: 'Fit the retry within {{max}} ({{edit}}; waits {{waits}}).',
      dropInner: 'Fit the retry within {{max}}: turn off the retries of {{inner}}, keeping those of {{label}} ({{edit}}; waits {{waits}}).',
    },
  },
  defaultOptions: [{ maxMs: IN_MEMORY_MS, queueMs: QUEUE_MS }],
  create(context, [{ maxMs = IN_MEMORY_MS, queueMs = QUEUE_MS }]) {
    return {
      'Program:exit'() {
        const model = getRetryModel(context);
        for (const site of model.sitesFor('duration')) {
          let worst = worstCaseDurationMs(site.attempts.value, site.delay, site.attemptTimeoutMs.value, site.deadlineMs.value);
          let inner: { site: RetrySite; ms: number } | undefined;
          // Only a site within budget on its own can be pushed over it by the retries it repeats.
          if (isKnown(worst) && worst <= maxMs) {
            const layers = model.operations.facts(site).nested.map((n) => n.site).filter((s): s is RetrySite => !!s);
            const layered = worstCaseWithLayers(site, layers);
            worst = layered.totalMs;
            inner = layered.inner;
          }
          if (!isKnown(worst)) {
            if (!reportKnownWaits(site)) reportTimeouts(site);
            continue;
          }
          if (worst <= maxMs) continue;
          const waits = scheduleWaits(site.attempts.value, site.delay);
          const innerText = inner && isKnown(site.attempts.value) ? `, plus ${site.attempts.value} x ${formatDuration(inner.ms)} of ${inner.site.label}'s own waits` : '';
          // Within budget on its own, the site fits once the inner layer no longer retries.
          const suggestion = inner ? disableSuggestion(inner.site, model) : scheduleSuggestion(site, { need: 'duration', maxMs }, model);
          const suggestedWaits = inner ? waits : suggestion?.waits;
          const suggestedText = suggestedWaits?.length ? formatWaits(suggestedWaits, formatDuration) : 'unchanged';
          context.report({
            node: site.reportNode,
            messageId: worst === Infinity ? 'endless' : worst > queueMs ? 'needsQueue' : 'tooLong',
            data: {
              label: site.label,
              duration: formatDuration(worst),
              max: formatDuration(maxMs),
              schedule: waits.length ? ` (waits ${formatWaits(waits, formatDuration)}${innerText || timeoutText(site.attemptTimeoutMs.value, waits.length + 1)})` : '',
              // Where no edit keeps the code's meaning, the message says so rather than guess.
              noFix: suggestion ? '' : '; no edit of these options alone fits the budget safely',
            },
            suggest: suggestion
              ? [inner
                  ? { messageId: 'dropInner', data: { max: formatDuration(maxMs), inner: inner.site.label, label: site.label, edit: describeEdits(suggestion.edits), waits: suggestedText }, fix: suggestion.fix }
                  : { messageId: 'fitBudget', data: { max: formatDuration(maxMs), edit: describeEdits(suggestion.edits), waits: suggestedText }, fix: suggestion.fix }]
              : [],
          });
        }
      },
    };

    /**
     * Waits not known on some failures (a wait the server sets on a 429), but those of the
     * failures whose waits are known already over budget: a lower bound is enough to know.
     */
    function reportKnownWaits(site: RetrySite): boolean {
      const least = leastWorstCaseMs(site.attempts.value, site.delay, site.attemptTimeoutMs.value, site.deadlineMs.value);
      const { leastWorst } = site.delay;
      if (!isKnown(least) || least <= maxMs || !leastWorst || !isKnown(site.attempts.value)) return false;
      const waits = Array.from({ length: site.attempts.value - 1 }, (_, k) => leastWorst(k + 1) as number);
      context.report({
        node: site.reportNode,
        messageId: 'knownWaitsTooLong',
        data: {
          label: site.label,
          duration: formatDuration(least),
          attempts: String(site.attempts.value),
          waits: formatWaits(waits, formatDuration),
          timeouts: timeoutText(site.attemptTimeoutMs.value, site.attempts.value),
          max: formatDuration(maxMs),
        },
      });
      return true;
    }

    /** Waits not known, but the per-attempt timeouts alone over budget: a lower bound is enough to know. */
    function reportTimeouts(site: RetrySite) {
      const least = attemptTimeoutsMs(site.attempts.value, site.attemptTimeoutMs.value, site.deadlineMs.value);
      if (!isKnown(least) || least <= maxMs) return;
      context.report({
        node: site.reportNode,
        messageId: 'timeoutsTooLong',
        data: { label: site.label, duration: formatDuration(least), attempts: String(site.attempts.value), timeout: formatDuration(site.attemptTimeoutMs.value as number), max: formatDuration(maxMs) },
      });
    }
  },
});

function timeoutText(timeout: unknown, attempts: number): string {
  return typeof timeout === 'number' && timeout > 0 ? `, plus ${attempts} x ${formatDuration(timeout)} attempt timeouts` : '';
}

