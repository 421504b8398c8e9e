/**
 * kafkajs 2.2.4's retrier (src/retry/index.js), in its shape, for the tests that read it across
 * files. `defaults` are the lines that set `RETRY_DEFAULT` (written in the file, or required from
 * another); with `bail`, the retried function is handed kafkajs's abort function, as kafkajs does.
 */
export function kafkajsRetrier(defaults: string, { bail = false }: { bail?: boolean } = {}): string {
  const aborting = bail
    ? `  let aborted = false
  const { factor, multiplier, maxRetryTime, retries } = configs
  const bail = error => {
    aborted = true
    reject(error || new Error('Aborted'))
  }
`
    : `  const { factor, multiplier, maxRetryTime, retries } = configs
`;
  return `
${defaults}
const random = (min, max) => Math.random() * (max - min) + min
const randomFromRetryTime = (factor, retryTime) => {
  const delta = factor * retryTime
  return Math.ceil(random(retryTime - delta, retryTime + delta))
}
const createRetriable = (configs, resolve, reject, fn) => {
${aborting}  const calculateExponentialRetryTime = retryTime => Math.min(randomFromRetryTime(factor, retryTime) * multiplier, maxRetryTime)
  const retry = (retryTime, retryCount = 0) => {
${bail ? '    if (aborted) return\n' : ''}    const nextRetryTime = calculateExponentialRetryTime(retryTime)
    const shouldRetry = retryCount < retries
    const scheduleRetry = () => {
      setTimeout(() => retry(nextRetryTime, retryCount + 1), retryTime)
    }
    fn(${bail ? 'bail, ' : ''}retryCount, retryTime)
      .then(resolve)
      .catch(e => {
        if (shouldRetry) scheduleRetry()
        else reject(e)
      })
  }
  return retry
}
module.exports = (opts = {}) => fn => {
  return new Promise((resolve, reject) => {
    const configs = Object.assign({}, RETRY_DEFAULT, opts)
    const start = createRetriable(configs, resolve, reject, fn)
    start(randomFromRetryTime(configs.factor, configs.initialRetryTime))
  })
}
`;
}
