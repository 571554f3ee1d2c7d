/**
 * X's v2 error bodies: RFC 7807 problem JSON `{title, detail, type, status}` (the OpenAPI `Problem`
 * family), plus the OAuth token endpoint's `{error, error_description}`. Wording follows what X sends
 * where it is publicly recorded (401, 403 duplicate, 429, client-forbidden); the rest is marked as the
 * sandbox's own in the README.
 */

export interface Problem {
  title: string
  detail: string
  type: string
  status: number
  [extra: string]: unknown
}

const PROBLEMS = 'https://api.x.com/2/problems'

/** A problem the sandbox answers with; thrown by handlers, turned into a reply by the route wrapper. */
export class ProblemReply extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'object' && body && 'detail' in body ? String(body.detail) : `HTTP ${status}`)
  }
}

export const problems = {
  unauthorized: (): Problem => ({
    title: 'Unauthorized',
    type: 'about:blank',
    status: 401,
    detail: 'Unauthorized',
  }),
  forbidden: (detail: string): Problem => ({ title: 'Forbidden', type: 'about:blank', status: 403, detail }),
  duplicate: (): Problem => ({
    title: 'Forbidden',
    type: 'about:blank',
    status: 403,
    detail: 'You are not allowed to create a Tweet with duplicate content.',
  }),
  clientForbidden: (clientId: string): Problem => ({
    title: 'Client Forbidden',
    type: 'https://api.twitter.com/2/problems/client-forbidden',
    status: 403,
    detail:
      "This app's access level does not permit this endpoint: it is read-only. Upgrade the app's access to post.",
    reason: 'client-not-enrolled',
    client_id: clientId,
    required_enrollment: 'Appropriate Level of API Access',
    registration_url: 'https://developer.x.com/en/portal/dashboard',
  }),
  tooManyRequests: (): Problem => ({
    title: 'Too Many Requests',
    type: 'about:blank',
    status: 429,
    detail: 'Too Many Requests',
  }),
  /** A request X rejects as a whole, with `detail` saying why. */
  invalid: (detail: string): Problem => ({
    title: 'Invalid Request',
    type: `${PROBLEMS}/invalid-request`,
    status: 400,
    detail,
  }),
  /** X's shape for bad parameters: a generic detail and one `errors[]` entry per offending parameter. */
  invalidParameters: (errors: { parameters: Record<string, string[]>; message: string }[]): Problem => ({
    title: 'Invalid Request',
    type: `${PROBLEMS}/invalid-request`,
    status: 400,
    detail: 'One or more parameters to your request was invalid.',
    errors,
  }),
  notFound: (detail: string): Problem => ({ title: 'Not Found', type: 'about:blank', status: 404, detail }),
  unsupportedMediaType: (detail: string): Problem => ({
    title: 'Unsupported Media Type',
    type: 'about:blank',
    status: 415,
    detail,
  }),
  internal: (): Problem => ({
    title: 'Internal Server Error',
    type: `${PROBLEMS}/internal-error`,
    status: 500,
    detail: 'Something went wrong in the sandbox.',
  }),
  /** A default body for an injected failure of `status`. */
  forStatus(status: number): Problem {
    if (status === 401) return problems.unauthorized()
    if (status === 403) return problems.forbidden('Forbidden')
    if (status === 429) return problems.tooManyRequests()
    if (status === 400) return problems.invalid('Injected failure.')
    if (status >= 500)
      return {
        ...problems.internal(),
        status,
        title: status === 503 ? 'Service Unavailable' : 'Internal Server Error',
      }
    return { title: `HTTP ${status}`, type: 'about:blank', status, detail: `Injected failure (${status}).` }
  },
}

/** Token endpoint errors use the OAuth shape, not problem JSON. */
export const oauthErrors = {
  invalidCode: () => ({
    error: 'invalid_request',
    error_description: 'Value passed for the authorization code was invalid.',
  }),
  invalidToken: () => ({
    error: 'invalid_request',
    error_description: 'Value passed for the token was invalid.',
  }),
  missing: (name: string) => ({
    error: 'invalid_request',
    error_description: `Missing required parameter [${name}].`,
  }),
  unsupportedGrant: () => ({ error: 'unsupported_grant_type', error_description: 'Unsupported grant type.' }),
  unauthorizedClient: () => ({
    error: 'unauthorized_client',
    error_description: 'Missing valid authorization header',
  }),
}
