import { isNetwork, type Network } from '../../core/networks.js'
import type { ConnectionRow } from '../../platform/db/statements/connections.js'
import { escapeHtml, networkLabels } from './html.js'
import { handleOf, profileAvatar } from './ui/avatar.js'
import { icon, networkIcon } from './ui/icons.js'

/** The Channels page's parts: one card per connected profile, and the grid of networks to connect. */

/** The networks offered to connect, in the order shown. */
const CONNECTABLE: readonly Network[] = [
  'twitter',
  'facebook',
  'instagram',
  'linkedin',
  'youtube',
  'threads',
  'bluesky',
  'mastodon',
]

/** What each tile says under the network's name: what connecting it reaches, in one line. */
const TILE_LINES: Record<Network, string> = {
  twitter: 'Posts and threads on your X account.',
  facebook: 'Facebook Pages, and the Instagram accounts linked to them.',
  instagram: 'A professional account without a Facebook Page.',
  linkedin: 'Your profile and the pages you administer.',
  youtube: 'Videos and Shorts on your channel.',
  threads: 'Posts and replies on your Threads profile.',
  bluesky: 'Sign in with an app password.',
  mastodon: 'Any instance: name yours, then sign in there.',
}

/** Where one network is reached two ways, the tile's name says which. */
const TILE_NAMES: Partial<Record<Network, string>> = {
  facebook: 'Facebook Pages',
  instagram: 'Instagram (without a Page)',
}

export interface HealthEntry {
  platform: string
  profileId: string
  needsReconnect: boolean
  expired: boolean
  daysLeft: number
  reason: string
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** The connection's health as a chip (an icon and words), and what to do about it, if anything. */
function healthOf(row: ConnectionRow, health: HealthEntry | undefined) {
  if (row.status === 'needs_reconnect' || health?.needsReconnect || health?.expired)
    return {
      chip: `<span class="chip bad">${icon('circle-x')}Reconnect needed</span>`,
      reason: health?.reason ?? row.last_error ?? 'The authorisation was lost.',
      reconnect: 'primary',
    }
  if (health)
    return {
      chip: `<span class="chip warn">${icon('hourglass')}Expires in ${plural(health.daysLeft, 'day')}</span>`,
      reason: health.reason,
      reconnect: 'secondary',
    }
  return { chip: `<span class="chip ok">${icon('circle-check')}Healthy</span>`, reason: '', reconnect: '' }
}

/** One profile as a card: avatar and network, health, and Reconnect or Disconnect where they apply. */
export function channelCard(row: ConnectionRow, health: HealthEntry | undefined, owner: boolean): string {
  const network = isNetwork(row.platform) ? networkLabels[row.platform] : row.platform
  const handle = handleOf(row.username)
  const state = healthOf(row, health)
  const who = `${network} ${handle}`
  const reconnect = state.reconnect
    ? `<a class="button${state.reconnect === 'primary' ? ' primary' : ''}" href="/connect/${escapeHtml(row.platform)}" aria-label="Reconnect ${escapeHtml(who)}">Reconnect</a>`
    : ''
  const disconnect = owner
    ? `<a class="button danger" href="/channels/disconnect?connectionId=${encodeURIComponent(row.id)}" aria-label="Disconnect ${escapeHtml(who)}">Disconnect</a>`
    : ''
  const name = row.name && row.name !== row.username.replace(/^@+/, '') ? row.name : ''
  return `<li class="card channel">
<div class="channel-who">${profileAvatar(row, 'large')}<div><h3>${escapeHtml(handle)}</h3><p class="muted">${escapeHtml(network)}${name ? ` · ${escapeHtml(name)}` : ''}</p></div></div>
<p class="channel-health">${state.chip}</p>${state.reason ? `\n<p class="channel-reason">${escapeHtml(state.reason)}</p>` : ''}
${reconnect || disconnect ? `<div class="channel-actions">${reconnect}${disconnect}</div>` : ''}
</li>`
}

/** The grid of networks to connect: each tile leads to its connect flow, or says who can set it up. */
export function networkTiles(canConnect: (network: Network) => boolean, administrator: boolean): string {
  const tiles = CONNECTABLE.map((network) => {
    const name = TILE_NAMES[network] ?? networkLabels[network]
    const head = `${networkIcon(network)}<span class="tile-name">${escapeHtml(name)}</span>`
    // A link's name says what it does; the tile shows the network alone, as its neighbours do.
    const linkHead = `${networkIcon(network)}<span class="tile-name"><span class="visually-hidden">Connect </span>${escapeHtml(name)}</span>`
    const line = `<span class="tile-line">${escapeHtml(TILE_LINES[network])}</span>`
    if (canConnect(network))
      return `<li><a class="tile" href="/connect/${network}">${linkHead}${line}</a></li>`
    const next = administrator
      ? `<a href="/settings/networks#${network}">Set it up on the network apps page</a>`
      : 'Ask the person who runs this Herald to set it up.'
    return `<li><div class="tile off">${head}<span class="tile-line"><strong>Not set up</strong>: it needs a developer app from ${escapeHtml(networkLabels[network])} first.</span><span class="tile-line">${next}</span></div></li>`
  })
  return `<ul class="tiles">\n${tiles.join('\n')}\n</ul>`
}
