// Client-level retry configuration.
import { S3Client } from '@aws-sdk/client-s3';
import got from 'got';

// Bad: ten attempts per S3 call.
export const s3 = new S3Client({ region: 'eu-west-1', maxAttempts: 10 });

// Bad: retries 404 and 422, which can never succeed on retry.
export const partners = got.extend({
  prefixUrl: 'https://partners.example.com',
  retry: { limit: 2, statusCodes: [404, 422, 500, 503] },
});

// Good: got's defaults retry reads only, 3 calls with exponential backoff and noise.
export const catalogue = got.extend({ prefixUrl: 'https://catalogue.example.com' });
