/** Hand-written retry loops shared by the rule tests. */

/**
 * A loop that waits and moves its backoff on two failure paths (a 5xx response, then the catch):
 * `step` is the catch's update of `delay` (the 5xx path doubles it), `fetchOptions` goes after the URL.
 */
export function twoPathLoop(step: string, fetchOptions = ''): string {
  return `export async function post(url: string, tries = 3) {
  let delay = 500;
  for (let i = 0; i < tries; i++) {
    try {
      const res = await fetch(url${fetchOptions});
      if (res.ok) return res;
      if (res.status >= 500 && i < tries - 1) {
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 4000);
        continue;
      }
      throw new Error('HTTP ' + res.status);
    } catch (err) {
      if (i === tries - 1) throw err;
      await new Promise((r) => setTimeout(r, delay));
      ${step};
    }
  }
}`;
}
