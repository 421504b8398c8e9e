import type { LibraryDescriptor } from '../library.js';

/**
 * Angular's `HttpClient`, as an HTTP client: it is injected, never imported as a value, so calls go
 * through a member or parameter of its type (`this.http.post(url, body)`). Its observable errors on
 * any status outside 2xx. An interceptor's `next.handle(req)` (`HttpHandler`) passes on whatever
 * request it is given, every method included.
 */
export const angularHttp: LibraryDescriptor = {
  id: 'angular-http',
  modules: ['@angular/common/http'],
  http: { method: 'members', bodyArgument: 1, senders: [], throwsOnClientError: true, types: ['HttpClient'], handlerTypes: ['HttpHandler'] },
};
