/**
 * Which 4xx responses a Resilience4j retry covers, from its Java exception lists: a 4xx is an
 * exception in Spring's HTTP clients, and retrying it is forbidden (R-RES-RE-X2).
 */
import type { Item, Prop } from './read.js';
import { UNKNOWN, isKnown, type Maybe } from './source.js';

/** Exception families whose 4xx responses are exceptions, with the classes above the 4xx class. */
const FAMILIES = [
  { id: 'RestTemplate/RestClient', clientError: 'HttpClientErrorException', ancestors: ['HttpStatusCodeException', 'RestClientResponseException', 'RestClientException', 'NestedRuntimeException'] },
  // WebClient has no 4xx base class: WebClientResponseException is the narrowest that covers them.
  { id: 'WebClient', clientError: 'WebClientResponseException', ancestors: ['WebClientException', 'NestedRuntimeException'] },
  { id: 'OpenFeign', clientError: 'FeignException$FeignClientException', ancestors: ['FeignException'] },
] as const;
const GENERIC = new Set(['Throwable', 'Exception', 'RuntimeException']);
/** Nested 4xx classes (HttpClientErrorException$NotFound ...); 408 and 429 may be retried. */
const STATUS_BY_NESTED: Readonly<Record<string, string>> = {
  BadRequest: '400', Unauthorized: '401', PaymentRequired: '402', Forbidden: '403', NotFound: '404',
  MethodNotAllowed: '405', NotAcceptable: '406', Conflict: '409', Gone: '410', PreconditionFailed: '412',
  UnsupportedMediaType: '415', UnprocessableEntity: '422', UnprocessableContent: '422',
};

/** `org.springframework.web.client.HttpClientErrorException$NotFound` (or `.NotFound`) -> `HttpClientErrorException$NotFound`. */
function simpleName(className: string): string {
  const parts = className.trim().split('.');
  const last = parts[parts.length - 1] ?? '';
  const previous = parts[parts.length - 2];
  if (previous && /^[A-Z]/.test(previous) && /^[A-Z]/.test(last) && !last.includes('$')) return `${previous}$${last}`;
  return last;
}

interface ClassCoverage {
  /** Indices into FAMILIES whose 4xx the class covers; all for Throwable/Exception/RuntimeException. */
  readonly families: readonly number[];
  readonly status: string;
}

function coverageOf(className: string): ClassCoverage | undefined {
  const name = simpleName(className);
  if (GENERIC.has(name)) return { families: FAMILIES.map((_, i) => i), status: `4xx (${name})` };
  const families: number[] = [];
  FAMILIES.forEach((f, i) => {
    if (name === f.clientError || (f.ancestors as readonly string[]).includes(name)) families.push(i);
  });
  if (families.length) return { families, status: `4xx (${name})` };
  const nested = /^(\w+)\$(\w+)$/.exec(name);
  if (nested) {
    const [, outer, inner] = nested;
    const status = STATUS_BY_NESTED[inner!];
    const index = FAMILIES.findIndex((f) => f.clientError === outer || f.clientError.startsWith(`${outer}$`));
    if (status && index !== -1) return { families: [index], status: `${status} (${name})` };
  }
  return undefined;
}

/** How a property resolves along a base-config chain: written, left to Resilience4j's default, or unknown. */
export type Lookup<P> = { readonly prop: Prop<P> } | 'default' | 'unknown';

export function written<P>(lookup: Lookup<P>): Prop<P> | undefined {
  return typeof lookup === 'object' ? lookup.prop : undefined;
}

export interface ErrorCoverage<P> {
  /** `custom`: a predicate, or lists this reader cannot see; `statuses`: the lists decide. */
  readonly kind: 'statuses' | 'custom';
  /** Classes in retry-exceptions that cover 4xx no ignore-exceptions entry stops. */
  readonly clientErrors: readonly { readonly status: string; readonly item: Item<P> }[];
  /** Every exception is retried, 4xx included: the ignore list that stops none (if written). */
  readonly retriesEverything?: { readonly ignore: Prop<P> | undefined } | undefined;
  /** The list or predicate that decides. */
  readonly decidedBy: Prop<P> | undefined;
}

function items<P>(prop: Prop<P> | undefined): Maybe<readonly Item<P>[]> {
  if (prop === undefined) return [];
  if (!isKnown(prop.value)) return UNKNOWN;
  return Array.isArray(prop.value) ? (prop.value as readonly Item<P>[]) : [];
}

export function errorCoverage<P>(retryLookup: Lookup<P>, ignoreLookup: Lookup<P>, predicateLookup: Lookup<P>): ErrorCoverage<P> {
  const retry = written(retryLookup);
  const ignore = written(ignoreLookup);
  const predicate = written(predicateLookup);
  const decidedBy = retry ?? ignore ?? predicate;
  const retryItems = items(retry);
  const ignoreItems = items(ignore);
  if (!isKnown(retryItems) || !isKnown(ignoreItems)) return { kind: 'custom', clientErrors: [], decidedBy };
  const ignoredFamilies = new Set<number>();
  const ignoredNames = new Set<string>();
  for (const item of ignoreItems) {
    const text = String(item.value);
    ignoredNames.add(simpleName(text));
    const coverage = coverageOf(text);
    // Ignoring one nested status (NotFound) leaves the family's other 4xx retried.
    if (coverage && coverage.status.startsWith('4xx')) coverage.families.forEach((f) => ignoredFamilies.add(f));
  }
  if (retryItems.length === 0) {
    // No retry-exceptions: every exception is retried (or whatever the predicate says).
    if (ignoredFamilies.size > 0) return { kind: 'statuses', clientErrors: [], decidedBy };
    // The lists may be written in the file this one overlays: a filter of unknown meaning.
    if (retryLookup === 'unknown' || ignoreLookup === 'unknown' || predicate) return { kind: 'custom', clientErrors: [], decidedBy };
    return { kind: 'statuses', clientErrors: [], retriesEverything: { ignore }, decidedBy };
  }
  const clientErrors: { status: string; item: Item<P> }[] = [];
  for (const item of retryItems) {
    const text = String(item.value);
    const coverage = coverageOf(text);
    if (!coverage) continue;
    const generic = coverage.families.length === FAMILIES.length;
    // Retrying Exception while ignoring some family's 4xx: the client in use is probably that one.
    const neutralised = generic ? ignoredFamilies.size > 0 : coverage.families.every((f) => ignoredFamilies.has(f)) || ignoredNames.has(simpleName(text));
    if (!neutralised) clientErrors.push({ status: coverage.status, item });
  }
  return { kind: 'statuses', clientErrors, decidedBy };
}
