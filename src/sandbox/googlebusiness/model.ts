import type { Clock } from '../../platform/clock.js'
import type { FaultInjector } from '../fault-injector.js'

/** The simulator's options and the shapes of its world: Google users, business accounts, locations, posts. */

export const BUSINESS_SCOPE = 'https://www.googleapis.com/auth/business.manage'
/** The older scope the v4 methods still accept. */
export const LEGACY_BUSINESS_SCOPE = 'https://www.googleapis.com/auth/plus.business.manage'

/** The four Google hosts, each served under a path of its own name beneath the simulator's prefix. */
export const SERVICES = {
  posts: 'mybusiness',
  accounts: 'mybusinessaccountmanagement',
  locations: 'mybusinessbusinessinformation',
  performance: 'businessprofileperformance',
} as const
export type Service = (typeof SERVICES)[keyof typeof SERVICES]

export interface GoogleBusinessSandboxOptions {
  /** Where the routes are mounted, e.g. `/sandbox/googlebusiness`. */
  prefix: string
  clock?: Clock
  /** This Herald's address for the simulator (sandbox mode): post links then open the simulator's pages. */
  publicUrl?: string
  /** When set, the token endpoint and the consent page accept only this OAuth client. */
  client?: { id: string; secret?: string }
  /** Calls per minute each API allows the project (Google's default is 300). */
  perMinute?: number
  /** How long a new post stays PROCESSING before it is LIVE, in ms of the clock (default 30 s). */
  processingMs?: number
  /** How the simulator's "Google fetcher" downloads a post's photo (default: fetch). */
  fetch?: typeof fetch
  /** Asked about every call the simulator serves (tests and the fault simulation). */
  faults?: FaultInjector
}

export interface GoogleUser {
  email: string
  name: string
}

export interface BusinessAccount {
  /** `accounts/{id}`. */
  name: string
  accountName: string
  type: 'PERSONAL' | 'LOCATION_GROUP'
  /** The Google user who manages it. */
  owner: string
}

export interface SimLocation {
  /** `locations/{id}`. */
  name: string
  /** The account that holds it, `accounts/{id}`. */
  account: string
  title: string
  addressLines: string[]
  locality: string
  postalCode: string
  regionCode: string
  phone: string
  websiteUri: string
  /** False: not verified, so Google shows none of its posts (`metadata.hasVoiceOfMerchant`). */
  verified: boolean
}

export type LocalPostState = 'PROCESSING' | 'LIVE' | 'REJECTED'

export interface SimLocalPost {
  /** `accounts/{a}/locations/{l}/localPosts/{p}`. */
  name: string
  id: string
  account: string
  /** `locations/{l}`. */
  location: string
  /** The post as created, in Google's fields (summary, topicType, event, offer, callToAction, media). */
  post: Record<string, unknown>
  /** Set at creation; PROCESSING becomes LIVE once `processingMs` has passed. */
  rejected: boolean
  createdAt: number
  /** Order of creation, for the list's page tokens. */
  seq: number
  /** The photo as the fetcher downloaded it, kept for the web page. */
  photo?: { url: string; key: string; bytes: number; format: string }
}

export interface MediaFetch {
  url: string
  ok: boolean
  status?: number
  bytes: number
  format?: string
  message?: string
}

/** A fault queued on the control surface, for the demo and the command-line tests. */
export interface ControlFault {
  op: string
  action: 'error' | 'error_after' | 'drop_before' | 'drop_after'
  status?: number
}
