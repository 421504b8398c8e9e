// Inventory sync: hand-written loops and a legacy helper.
import retry from 'async-retry';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Bad: a constant one-second sleep, five tries, every error retried.
export async function reserveStock(sku: string): Promise<Response> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await fetch(`https://inventory.example.com/stock/${sku}`);
    } catch {
      await sleep(1000);
    }
  }
  throw new Error(`stock service unavailable for ${sku}`);
}

// Bad: a legacy helper with node-retry defaults (10 retries).
export async function loadCatalogue() {
  return retry(async () => {
    const response = await fetch('https://inventory.example.com/catalogue');
    if (response.status >= 500) throw new Error(`catalogue: ${response.status}`);
    return response.json();
  });
}

// Good: a bounded exponential loop with full jitter over a read.
export async function loadWarehouse(id: string): Promise<unknown> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const response = await fetch(`https://inventory.example.com/warehouses/${id}`);
      if (response.status >= 500) throw new Error(String(response.status));
      return await response.json();
    } catch (error) {
      if (attempt === 3) throw error;
      await sleep(Math.random() * Math.min(2000, 500 * 2 ** (attempt - 1)));
    }
  }
  throw new Error('unreachable');
}
