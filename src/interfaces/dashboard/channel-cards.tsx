import { networkErrorInWords } from '../../core/network-error-words.js'
import { isNetwork, type Network } from '../../core/networks.js'
import type { ConnectionRow } from '../../platform/db/statements/connections.js'
import { networkLabels } from './html.js'
import { Avatar, handleOf } from './ui/avatar.js'
import { Icon, NetworkIcon } from './ui/parts.js'

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
  'googlebusiness',
  'tiktok',
  'pinterest',
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
  googlebusiness: 'Updates, events and offers on the locations you choose.',
  tiktok: 'Videos and photo posts on your TikTok account, or drafts in its inbox.',
  pinterest: 'Pins on the boards you choose.',
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
      chip: (
        <span class="chip bad">
          <Icon name="circle-x" />
          Reconnect needed
        </span>
      ),
      reason:
        health?.reason ??
        (row.last_error ? networkErrorInWords(row.last_error) : 'The authorisation was lost.'),
      reconnect: 'primary',
    }
  if (health)
    return {
      chip: (
        <span class="chip warn">
          <Icon name="hourglass" />
          Expires in {plural(health.daysLeft, 'day')}
        </span>
      ),
      reason: health.reason,
      reconnect: 'secondary',
    }
  return {
    chip: (
      <span class="chip ok">
        <Icon name="circle-check" />
        Healthy
      </span>
    ),
    reason: '',
    reconnect: '',
  }
}

/** One profile as a card: avatar and network, health, and Reconnect or Disconnect where they apply. */
export function ChannelCard({
  row,
  health,
  owner,
  picture,
}: {
  row: ConnectionRow
  health: HealthEntry | undefined
  owner: boolean
  /** Herald's path of the profile's kept picture, when there is one. */
  picture?: string | undefined
}) {
  const network = isNetwork(row.platform) ? networkLabels[row.platform] : row.platform
  const handle = handleOf(row.username)
  const state = healthOf(row, health)
  const who = `${network} ${handle}`
  const name = row.name && row.name !== row.username.replace(/^@+/, '') ? row.name : ''
  return (
    <li class="card channel">
      <div class="channel-who">
        <Avatar profile={{ ...row, avatar: picture }} size="large" />
        <div>
          <h3>{handle}</h3>
          <p class="muted">
            {network}
            {name ? ` · ${name}` : ''}
          </p>
        </div>
      </div>
      <p class="channel-health">{state.chip}</p>
      {state.reason ? <p class="channel-reason">{state.reason}</p> : null}
      {state.reconnect || owner ? (
        <div class="channel-actions">
          {state.reconnect ? (
            <a
              class={state.reconnect === 'primary' ? 'button primary' : 'button'}
              href={`/connect/${row.platform}`}
              aria-label={`Reconnect ${who}`}
            >
              Reconnect
            </a>
          ) : null}
          {owner ? (
            <a
              class="button danger"
              href={`/channels/disconnect?connectionId=${encodeURIComponent(row.id)}`}
              aria-label={`Disconnect ${who}`}
            >
              Disconnect
            </a>
          ) : null}
        </div>
      ) : null}
    </li>
  )
}

function Tile({
  network,
  canConnect,
  administrator,
}: {
  network: Network
  canConnect: boolean
  administrator: boolean
}) {
  const name = TILE_NAMES[network] ?? networkLabels[network]
  const line = <span class="tile-line">{TILE_LINES[network]}</span>
  if (canConnect)
    return (
      <li>
        <a class="tile" href={`/connect/${network}`}>
          <NetworkIcon network={network} />
          {/* A link's name says what it does; the tile shows the network alone, as its neighbours do. */}
          <span class="tile-name">
            <span class="visually-hidden">Connect </span>
            {name}
          </span>
          {line}
        </a>
      </li>
    )
  return (
    <li>
      <div class="tile off">
        <NetworkIcon network={network} />
        <span class="tile-name">{name}</span>
        <span class="tile-line">
          <strong>Not set up</strong>: it needs a developer app from {networkLabels[network]} first.
        </span>
        <span class="tile-line">
          {administrator ? (
            <a href={`/settings/networks#${network}`}>Set it up on the network apps page</a>
          ) : (
            'Ask the person who runs this Herald to set it up.'
          )}
        </span>
      </div>
    </li>
  )
}

/** The grid of networks to connect: each tile leads to its connect flow, or says who can set it up. */
export function NetworkTiles({
  canConnect,
  administrator,
}: {
  canConnect: (network: Network) => boolean
  administrator: boolean
}) {
  return (
    <ul class="tiles">
      {CONNECTABLE.map((network) => (
        <Tile network={network} canConnect={canConnect(network)} administrator={administrator} />
      ))}
    </ul>
  )
}
