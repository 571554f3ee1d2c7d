import { renderToString } from 'preact-render-to-string'
import { isNetwork, type Network } from '../../../core/networks.js'
import { NetworkIcon } from './parts.js'

/**
 * A profile's avatar with the network's mark on the corner: the picture the network gives, as Herald keeps
 * it (fetched once at connect or refresh and served from Herald's own media, so the CSP's `img-src 'self'`
 * holds and no page asks the network's servers for anything), else the profile's initials.
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

export interface AvatarProfile {
  platform: string
  name: string
  username: string
  /** Herald's path of the profile's picture (`/media/<id>/<name>`), when it keeps one. */
  avatar?: string | undefined
}

/** The avatar, hidden from screen readers: the handle and network beside it say who it is. */
export function Avatar({
  profile,
  size = 'normal',
}: {
  profile: AvatarProfile
  size?: 'small' | 'normal' | 'large'
}) {
  return (
    <span class={size === 'normal' ? 'avatar' : `avatar ${size}`} aria-hidden="true">
      {profile.avatar?.startsWith('/media/') ? (
        <img src={profile.avatar} alt="" loading="lazy" decoding="async" />
      ) : (
        initials(profile.name, profile.username)
      )}
      {isNetwork(profile.platform) ? <NetworkIcon network={profile.platform as Network} /> : null}
    </span>
  )
}

/** The avatar as HTML, for the parts of Compose still put together as strings. */
export const profileAvatar = (
  profile: AvatarProfile,
  size: 'small' | 'normal' | 'large' = 'normal',
): string => renderToString(<Avatar profile={profile} size={size} />)

/** A handle shown once with one @ (`@@acme` and `acme` both show as `@acme`). */
export const handleOf = (username: string) => `@${username.replace(/^@+/, '')}`
