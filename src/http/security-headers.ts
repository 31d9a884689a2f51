// Security headers (helmet's set) on every answer. Our policy uses no per-request nonce, so the headers are
// the same for every request: helmet computes them once here, and each request only copies them.
// (@fastify/helmet rebuilt the middleware, CSP parsing included, on every request.)
import helmet, { type HelmetOptions } from 'helmet';

const OPTIONS: HelmetOptions = {
  // The recruiter page loads only its own scripts and styles; the docs UI needs inline styles.
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      // Plain-http deployments (a LAN address) must not have their own assets upgraded to https.
      upgradeInsecureRequests: null,
    },
  },
};

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

/** helmet's headers for our policy, computed on first use; the app's one onRequest hook copies them to each reply. */
export function securityHeaders(): Readonly<Record<string, string>> {
  return (computed ??= Object.freeze(computeSecurityHeaders(OPTIONS)));
}
