// Security headers (helmet's set) on every answer. Our policy uses no per-request nonce, so the headers are
// the same for every request: helmet computes them once here, and each request only copies them.
// (@fastify/helmet rebuilt the middleware, CSP parsing included, on every request.)
import helmet, { type HelmetOptions } from 'helmet';

/** The policy's directives; `inlineStyles` for the API reference UI (swagger-ui styles its elements inline). */
function options(inlineStyles: boolean): HelmetOptions {
  return {
    // The recruiter page and everything else load only the service's own scripts and styles.
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: inlineStyles ? ["'self'", "'unsafe-inline'"] : ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        // Plain-http deployments (a LAN address) must not have their own assets upgraded to https.
        upgradeInsecureRequests: null,
      },
    },
  };
}

/** The headers helmet sets for these options, by running its middleware once against a recording response. */
function computeSecurityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  helmet(options)({} as never, recorder as never, (err?: unknown) => {
    failure = err;
  });
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  return headers;
}

let computed: Readonly<Record<string, string>> | undefined;
let computedForDocs: Readonly<Record<string, string>> | undefined;

/** helmet's headers for our policy, computed on first use; the app's one onRequest hook copies them to each reply. */
export function securityHeaders(): Readonly<Record<string, string>> {
  return (computed ??= Object.freeze(computeSecurityHeaders(options(false))));
}

/** The same, with inline styles allowed: for /docs alone, whose UI needs them. */
export function docsSecurityHeaders(): Readonly<Record<string, string>> {
  return (computedForDocs ??= Object.freeze(computeSecurityHeaders(options(true))));
}

/** Whether a request's URL is the API reference UI's (/docs and below), which alone gets the inline-styles policy. */
export function isDocsUrl(url: string): boolean {
  return url.startsWith('/docs') && (url.length === 5 || url[5] === '/' || url[5] === '?');
}
