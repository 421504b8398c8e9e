import type { LibraryDescriptor } from '../library.js';
import { apolloRetryLink } from './apollo-retry-link.js';
import { awsSdkV2 } from './aws-sdk-v2.js';
import { awsSdkV3 } from './aws-sdk-v3.js';
import { bull, bullmq } from './bullmq.js';
import { anthropic, openai } from './openai.js';
import { kafkajs } from './kafkajs.js';
import { ioredis } from './ioredis.js';
import { bottleneck } from './bottleneck.js';
import { realtimeJs } from './realtime-js.js';
import { slackWebApi } from './slack-web-api.js';
import { stripe } from './stripe.js';
import { swr } from './swr.js';
import { tanstackQuery, trpcQuery } from './tanstack-query.js';
import { temporal } from './temporal.js';
import { urqlRetryExchange } from './urql-retry-exchange.js';

export const SDK_LIBRARIES: readonly LibraryDescriptor[] = [
  apolloRetryLink,
  urqlRetryExchange,
  tanstackQuery,
  trpcQuery,
  swr,
  awsSdkV3,
  awsSdkV2,
  stripe,
  openai,
  anthropic,
  slackWebApi,
  kafkajs,
  ioredis,
  bottleneck,
  realtimeJs,
  temporal,
  bullmq,
  bull,
];
