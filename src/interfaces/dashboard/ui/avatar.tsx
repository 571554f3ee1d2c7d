import { isNetwork, type Network } from '../../../core/networks.js'
import { NetworkIcon } from './parts.js'

/**
 * A profile's avatar: its initials with the network's mark on the corner. The picture a network gives is not
 * shown: the dashboard's CSP lets images come from Herald alone, and Herald keeps only the picture's address
 * on the network, so loading it would be a request leaving for the network's servers.
 */

/** Up to two letters: the first of the first two words of the name (`Corner Shop` → `CS`), else of the handle. */
export function initials(name: string, handle = ''): string {
  // Letters and digits only: `@acme (X)` gives `AX`, not `@(`.
  const words = (name.trim() || handle).split(/[^\p{L}\p{N}]+/u).filter(Boolean)
  const letters = words
    .slice(0, 2)
    .map((word) => Array.from(word)[0] ?? '')
    .join('')
  return letters.toUpperCase() || '?'
}

/** The avatar, hidden from screen readers: the handle and network beside it say who it is. */
export function Avatar({
  profile,
  size = 'normal',
}: {
  profile: { platform: string; name: string; username: string }
  size?: 'small' | 'normal' | 'large'
}) {
  return (
    <span class={size === 'normal' ? 'avatar' : `avatar ${size}`} aria-hidden="true">
      {initials(profile.name, profile.username)}
      {isNetwork(profile.platform) ? <NetworkIcon network={profile.platform as Network} /> : null}
    </span>
  )
}

/** A handle shown once with one @ (`@@acme` and `acme` both show as `@acme`). */
export const handleOf = (username: string) => `@${username.replace(/^@+/, '')}`
