import { networkRules } from './network-rules.js'
import type { Network } from './networks.js'

/**
 * The same copy sent twice to one profile within a day: X refuses it ("You are not allowed to create a
 * Tweet with duplicate content"), other networks take it but followers see it twice. preflight_post
 * compares each target's copy with the profile's posts published or scheduled within this window.
 */
export const DUPLICATE_WINDOW_MS = 24 * 60 * 60 * 1000

/**
 * The copy as networks compare posts: Unicode NFC, outer whitespace trimmed, each run of whitespace one
 * space (X's duplicate check and the networks' stored text ignore both). Case and links count: two posts
 * with different links are different posts.
 */
export function comparableCopy(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim()
}

/** True when the network refuses a repeated copy (a blocker), false when a repeat is only advised against. */
export const refusesDuplicateCopy = (network: Network): boolean => networkRules[network].refusesDuplicateCopy
