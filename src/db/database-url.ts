// DATABASE_URL: the connection strings the service takes (those pg's own parser, pg-connection-string, takes) and how
// one is shown in a message: where it points, never its password.
import { parse, type ConnectionOptions } from 'pg-connection-string';

// The forms pg reads as a connection string. Anything else it would read as a path relative to "postgres://base"
// (`localhost:5432` becomes a database on a host named base), or as a URL of another kind of server.
const POSTGRES_SCHEME = /^(postgres|postgresql):\/\//i;
const FORMS =
  'postgres://user:password@host:port/database, or for a unix socket postgres://user@/database?host=/var/run/postgresql ' +
  '(also socket:/var/run/postgresql?db=database, or "/var/run/postgresql database")';

function parsed(url: string): ConnectionOptions | string {
  if (!POSTGRES_SCHEME.test(url) && !/^socket:/i.test(url) && !url.startsWith('/')) return `must be a PostgreSQL connection string: ${FORMS}`;
  try {
    return parse(url);
  } catch (err) {
    // pg-connection-string takes the input out of the URL parser's error; a file it could not read (sslrootcert=...)
    // is named by its path.
    if (err instanceof TypeError) return `is not a connection string pg can read (${err.message}): ${FORMS}`;
    return `cannot be used: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Why pg cannot use this DATABASE_URL (words that never quote it), or null when it can. */
export function databaseUrlProblem(url: string): string | null {
  const c = parsed(url);
  return typeof c === 'string' ? c : null;
}

/**
 * DATABASE_URL as a message shows it: the user, the host (or socket directory), the port and the database, with `***`
 * for a password however it was given (in the URL or as ?password=); other parameters are left out.
 */
export function shownDatabaseUrl(url: string): string {
  const c = parsed(url);
  if (typeof c === 'string') return '(DATABASE_URL)';
  const scheme = POSTGRES_SCHEME.exec(url)?.[1]?.toLowerCase() ?? 'postgres';
  const socket = c.host?.startsWith('/') ?? false;
  const user = c.user || c.password ? `${encodeURIComponent(c.user ?? '')}${c.password ? ':***' : ''}@` : '';
  const host = socket || !c.host ? '' : c.host.includes(':') ? `[${c.host}]` : c.host;
  const database = c.database ? encodeURIComponent(c.database) : '';
  if (socket) return `${scheme}://${user}/${database}?host=${c.host}${c.port ? `&port=${c.port}` : ''}`;
  return `${scheme}://${user}${host}${c.port ? `:${c.port}` : ''}/${database}`;
}
