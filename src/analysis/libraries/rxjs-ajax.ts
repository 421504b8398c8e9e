import type { LibraryDescriptor } from '../library.js';

/**
 * rxjs's `ajax` (`rxjs/ajax`), as an HTTP client: `ajax.getJSON(url)`, `ajax.get/post/put/patch/
 * delete(url, ...)` and `ajax({ url, method })`. Its observable errors with an `AjaxError` on any
 * status of 400 or more (rxjs 7, `src/internal/ajax/ajax.ts`), so a `retry()` after it resubscribes
 * on 4xx unless something filters them. It does not retry by itself.
 */
export const rxjsAjax: LibraryDescriptor = {
  id: 'rxjs-ajax',
  modules: ['rxjs/ajax'],
  http: { method: 'members', senders: ['ajax', 'getJSON'], throwsOnClientError: true },
};
