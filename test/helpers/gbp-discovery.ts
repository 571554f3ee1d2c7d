import type { GoogleBusinessSettings } from '../../src/adapters/googlebusiness/index.js'
import {
  type CheckedRequest,
  createValidatingFetch,
  DiscoveryRequestValidator,
  loadDiscovery,
  type ValidatingFetch,
} from './discovery-request-validator.js'
import { referencePath } from './reference.js'

/**
 * Google's own descriptions of the four Business Profile APIs (../shared/reference/openapi), and a fetch
 * that holds every call the adapter makes to the one of its host: local posts to the My Business v4
 * document, accounts to Account Management v1, locations to Business Information v1, figures to
 * Performance v1. The OAuth token endpoint is in none of them and passes unchecked.
 */
export const GOOGLE_BUSINESS_DOCUMENTS = {
  postsUrl: referencePath('openapi/gbp-mybusiness-v4.discovery.json'),
  accountsUrl: referencePath('openapi/gbp-mybusinessaccountmanagement-v1.discovery.json'),
  locationsUrl: referencePath('openapi/gbp-mybusinessbusinessinformation-v1.discovery.json'),
  performanceUrl: referencePath('openapi/gbp-businessprofileperformance-v1.discovery.json'),
} as const

type Hosts = Pick<GoogleBusinessSettings, keyof typeof GOOGLE_BUSINESS_DOCUMENTS | 'tokenUrl'>

export interface GoogleBusinessValidation {
  fetch: typeof fetch
  checked: CheckedRequest[]
  exempted: string[]
  /** Requests the documents do not allow (and calls to no known host). */
  problems: string[]
  /** Answers that do not match the methods' response schemas (the simulator's fidelity). */
  responseProblems: string[]
}

/** Undefined when ../shared is absent (the reference files are not there to hold anything to). */
export function googleBusinessValidators(hosts: Hosts) {
  const entries = Object.entries(GOOGLE_BUSINESS_DOCUMENTS).map(([key, file]) => {
    const doc = loadDiscovery(file)
    const base = hosts[key as keyof typeof GOOGLE_BUSINESS_DOCUMENTS]
    return { base, doc, validator: doc ? new DiscoveryRequestValidator(doc, { apiUrl: base }) : undefined }
  })
  return entries.every((e) => e.validator) ? entries : undefined
}

export function googleBusinessValidatingFetch(
  hosts: Hosts,
  options: { inner?: typeof fetch; validateResponses?: boolean } = {},
): GoogleBusinessValidation | undefined {
  const entries = googleBusinessValidators(hosts)
  if (!entries) return undefined
  const inner = options.inner ?? fetch
  const wrapped: ValidatingFetch[] = entries.map((entry) =>
    createValidatingFetch({
      validator: entry.validator,
      apiUrl: entry.base,
      inner,
      validateResponses: options.validateResponses ?? true,
    }),
  )
  const state: GoogleBusinessValidation = {
    fetch: inner,
    get checked() {
      return wrapped.flatMap((w) => w.checked)
    },
    exempted: [],
    get problems() {
      return [...wrapped.flatMap((w) => w.problems), ...outside]
    },
    get responseProblems() {
      return wrapped.flatMap((w) => w.responseProblems)
    },
  }
  const outside: string[] = []
  state.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input)
    const index = entries.findIndex((entry) => url.startsWith(`${entry.base}/`))
    if (index >= 0) return (wrapped[index] as ValidatingFetch).fetch(input, init)
    if (url.startsWith(hosts.tokenUrl)) state.exempted.push(url.split('?')[0] as string)
    else outside.push(`${init?.method ?? 'GET'} ${url}: on none of the four Business Profile hosts`)
    return inner(input, init)
  }) as typeof fetch
  return state
}
