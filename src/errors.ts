// The service's typed errors: each has a code and an HTTP status; one handler maps them to problem+json.

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(detail: string, errors?: FieldError[]) {
    super(400, 'bad_request', 'Bad request', detail, errors);
  }
}

export class UnauthorizedError extends AppError {
  constructor(detail = 'Send a valid API key as "Authorization: Bearer <key>".') {
    super(401, 'unauthorized', 'Unauthorized', detail, undefined, { 'www-authenticate': 'Bearer' });
  }
}

export class NotFoundError extends AppError {
  constructor(what: string) {
    super(404, 'not_found', 'Not found', `${what} does not exist.`);
  }
}

export class ConflictError extends AppError {
  constructor(detail: string) {
    super(409, 'conflict', 'Conflict', detail);
  }
}

export class UnprocessableError extends AppError {
  constructor(detail: string, errors?: FieldError[]) {
    super(422, 'unprocessable', 'Unprocessable request', detail, errors);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(detail: string, retryAfterSeconds: number) {
    super(429, 'too_many_requests', 'Too many requests', detail, undefined, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string) {
    super(503, 'unavailable', 'Service unavailable', detail, undefined, { 'retry-after': '5' });
  }
}

/**
 * The database failing under a request or a run, by what a client or an operator can do about it. Each is a 503 that
 * may be retried (a run's attempt is retried by the worker's rules); the driver's own error, which can quote SQL or
 * data, is the `cause`, for the log only.
 */
export type DatabaseFault = 'database_unavailable' | 'database_timeout' | 'database_busy' | 'database_conflict' | 'database_out_of_resources';

const DATABASE_FAULTS: Record<DatabaseFault, { name: string; title: string; detail: string }> = {
  database_unavailable: {
    name: 'DatabaseUnavailableError',
    title: 'Database unavailable',
    detail: 'The database could not be reached, or the connection to it was lost, before the work was done; retry later.',
  },
  database_timeout: {
    name: 'DatabaseTimeoutError',
    title: 'Database timeout',
    detail: 'A database statement ran, or waited for a lock, longer than the service allows and was cancelled; nothing of it was kept; retry later.',
  },
  database_busy: {
    name: 'DatabaseBusyError',
    title: 'Database busy',
    detail: "Every database connection of the service stayed in use longer than a request may wait for one, so nothing was done; retry later.",
  },
  database_conflict: {
    name: 'DatabaseConflictError',
    title: 'Database conflict',
    detail: 'The database rolled the work back on every attempt, each time for a conflict with concurrent work (a deadlock); nothing of it was kept; retry later.',
  },
  database_out_of_resources: {
    name: 'DatabaseOutOfResourcesError',
    title: 'Database out of resources',
    detail: 'The database ran out of disk space or memory for the work; nothing of it was kept; retry later.',
  },
};

export class DatabaseFaultError extends AppError {
  constructor(
    readonly fault: DatabaseFault,
    cause: unknown,
  ) {
    const { title, detail } = DATABASE_FAULTS[fault];
    super(503, fault, title, detail, undefined, { 'retry-after': '5' });
    this.name = DATABASE_FAULTS[fault].name;
    this.cause = cause;
  }
}
