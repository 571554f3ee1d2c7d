/** The closed set of error codes every transport speaks (DESIGN.md, Errors). */
export const errorCodes = [
  'invalid_request',
  'unauthorized',
  'insufficient_credits',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'internal',
] as const

export type ErrorCode = (typeof errorCodes)[number]

export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case 'invalid_request':
      return 400
    case 'unauthorized':
      return 401
    case 'insufficient_credits':
      return 402
    case 'forbidden':
      return 403
    case 'not_found':
      return 404
    case 'conflict':
      return 409
    case 'rate_limited':
      return 429
    case 'internal':
      return 500
  }
}

export interface ErrorBody {
  success: false
  error: { code: ErrorCode; message: string; details?: unknown }
}

/**
 * A failure a caller can act on. `httpStatus` overrides the code's usual status only for transport-level
 * refusals that HTTP names more precisely (415 wrong content type, 413 body too large).
 */
export class AppError extends Error {
  override name = 'AppError'
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly httpStatus: number = httpStatusFor(code),
  ) {
    super(message)
  }

  toBody(): ErrorBody {
    return {
      success: false,
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    }
  }
}

export const invalid = (message: string, details?: unknown) =>
  new AppError('invalid_request', message, details)
export const notFound = (message: string) => new AppError('not_found', message)
export const conflict = (message: string, details?: unknown) => new AppError('conflict', message, details)

/** Any thrown value as an AppError; unknown failures become a bare `internal` that leaks nothing. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error
  return new AppError('internal', 'Internal error')
}
