import rule from '../../src/rules/require-skip-locked.js';
import { run } from '../helpers/rule-tester.js';

run('require-skip-locked', rule, {
  valid: [
    `await pool.query("SELECT id FROM tasks WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 50 FOR UPDATE SKIP LOCKED");`,
    `await pool.query(\`SELECT id FROM tasks WHERE next_attempt_at <= now() LIMIT \${batch} FOR UPDATE NOWAIT\`);`,
    // Locking one known row must wait for it: that is correct, not a claim.
    `await client.query('SELECT balance FROM accounts WHERE id = $1 FOR UPDATE', [id]);`,
    // Not SQL at all.
    `const help = 'press the button for update notes';`,
    `await sql\`WITH due AS (SELECT id FROM jobs WHERE run_at <= now() ORDER BY run_at LIMIT 10 FOR UPDATE SKIP LOCKED) UPDATE jobs SET locked = true FROM due WHERE jobs.id = due.id RETURNING *\`;`,
  ],
  invalid: [
    {
      code: `await pool.query("SELECT id FROM tasks WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 50 FOR UPDATE");`,
      errors: [{
        messageId: 'blockingClaim', line: 1, column: 99, endColumn: 109, data: { clause: 'FOR UPDATE' },
        suggestions: [{ messageId: 'addSkipLocked', output: `await pool.query("SELECT id FROM tasks WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 50 FOR UPDATE SKIP LOCKED");` }],
      }],
    },
    {
      // A tagged template over several lines, with interpolated parameters.
      code: `const rows = await sql\`\n  SELECT id, payload FROM outbox\n  WHERE sent_at IS NULL\n  ORDER BY id\n  LIMIT \${batchSize}\n  FOR NO KEY UPDATE OF outbox\n\`;`,
      errors: [{
        messageId: 'blockingClaim', line: 6, column: 3, endLine: 6, endColumn: 30, data: { clause: 'FOR NO KEY UPDATE OF outbox' },
        suggestions: [{ messageId: 'addSkipLocked', output: `const rows = await sql\`\n  SELECT id, payload FROM outbox\n  WHERE sent_at IS NULL\n  ORDER BY id\n  LIMIT \${batchSize}\n  FOR NO KEY UPDATE OF outbox SKIP LOCKED\n\`;` }],
      }],
    },
    {
      // A claim CTE in a plain template.
      code: `const CLAIM = \`WITH due AS (SELECT id FROM tasks WHERE status = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1 FOR UPDATE) UPDATE tasks SET status = 'running' FROM due WHERE tasks.id = due.id RETURNING tasks.*\`;`,
      errors: [{ messageId: 'blockingClaim', line: 1, column: 138, suggestions: [{ messageId: 'addSkipLocked', output: `const CLAIM = \`WITH due AS (SELECT id FROM tasks WHERE status = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) UPDATE tasks SET status = 'running' FROM due WHERE tasks.id = due.id RETURNING tasks.*\`;` }] }],
    },
  ],
});
