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
