// Payment calls: the place where retries charge customers twice.
import pRetry, { AbortError } from 'p-retry';
import axios from 'axios';

const api = axios.create({ baseURL: 'https://payments.example.com' });

// Bad: p-retry's defaults (11 calls over ~17 minutes, no jitter) around a call that throws on 4xx.
export async function capturePayment(orderId: string, amount: number) {
  return pRetry(() => api.post('/captures', { orderId, amount }));
}

// Good: a bounded, jittered exponential retry of a read that stops on 4xx.
export async function getPayment(paymentId: string) {
  return pRetry(
    async () => {
      try {
        return await api.get(`/payments/${paymentId}`);
      } catch (error) {
        const status = (error as { response?: { status?: number } }).response?.status;
        if (status !== undefined && status < 500 && status !== 408 && status !== 429) throw new AbortError(String(status));
        throw error;
      }
    },
    { retries: 2, minTimeout: 500, factor: 2, randomize: true, maxRetryTime: 4000 },
  );
}
