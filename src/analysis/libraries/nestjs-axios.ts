import type { LibraryDescriptor } from '../library.js';

/**
 * NestJS's `HttpService` (`@nestjs/axios`): axios behind an Observable, injected into a class
 * (`this.httpService.post(url, body)`). It errors on any status outside 2xx unless the request's
 * `validateStatus` says otherwise.
 */
export const nestjsAxios: LibraryDescriptor = {
  id: 'nestjs-axios',
  modules: ['@nestjs/axios'],
  http: { method: 'members', bodyArgument: 1, senders: [], throwsOnClientError: true, nonThrowingOptions: ['validateStatus'], statusAcceptedOption: 'validateStatus', types: ['HttpService'] },
};
