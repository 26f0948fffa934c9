import { provideHttpClient, withFetch } from '@angular/common/http';
import { type ApplicationConfig, provideBrowserGlobalErrorListeners, provideZonelessChangeDetection } from '@angular/core';

export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    // Zoneless is Angular 21's default; said here so that nobody looks for zone.js.
    provideZonelessChangeDetection(),
    // HttpClient on fetch(): unsubscribing aborts the request through its AbortSignal, which is how
    // Cancel (and a destroyed component) reaches the requests in flight.
    provideHttpClient(withFetch()),
  ],
};
