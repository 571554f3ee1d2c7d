import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { type Network, networkLabels, networks } from '../../../core/networks.js'
import { escapeHtml } from './escape.js'

/**
 * The dashboard's icons, inline SVG bundled with Herald (no request leaves for an icon, ever): networks'
 * marks from simple-icons, everything else from Lucide. Each is read once, at start, from the package's own
 * files; every icon is decoration beside a word that says the same, so it is hidden from screen readers.
 */

const require = createRequire(import.meta.url)
const read = (specifier: string) => readFileSync(require.resolve(specifier), 'utf8')

/** simple-icons has no LinkedIn mark (LinkedIn asked for it to be removed): Herald draws "in" in a square. */
const LINKEDIN_PATH =
  'M3 2h18a1 1 0 0 1 1 1v18a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V3a1 1 0 0 1 1-1zM6 7.5a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0-3 0zM6 10v8h3v-8zM11 10v8h3v-4c0-1.1.6-1.8 1.6-1.8.9 0 1.4.6 1.4 1.6V18h3v-4.4c0-2.5-1.2-3.8-3.2-3.8-1.2 0-2.2.5-2.8 1.4V10z'

const SIMPLE_ICON: Record<Exclude<Network, 'linkedin'>, string> = {
  twitter: 'x',
  facebook: 'facebook',
  instagram: 'instagram',
  threads: 'threads',
  bluesky: 'bluesky',
  youtube: 'youtube',
  // The map pin: a Business Profile is a place on Google Maps.
  googlebusiness: 'googlemaps',
  tiktok: 'tiktok',
  pinterest: 'pinterest',
  mastodon: 'mastodon',
}

const pathOf = (svg: string) => {
  const d = /<path d="([^"]+)"/.exec(svg)?.[1]
  if (!d) throw new Error('an icon without a path')
  return d
}

const networkPaths: Record<Network, string> = Object.fromEntries(
  networks.map((network) => [
    network,
    network === 'linkedin' ? LINKEDIN_PATH : pathOf(read(`simple-icons/icons/${SIMPLE_ICON[network]}.svg`)),
  ]),
) as Record<Network, string>

/** A network's mark as SVG path data on a 24-unit square (the MCP views draw it from this). */
export const networkPath = (network: Network): string => networkPaths[network]

/** A network's mark, in its brand colour (the `net-<network>` class), hidden from screen readers. */
export function networkIcon(network: Network): string {
  return `<svg class="net-icon net-${network}" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill-rule="evenodd" d="${networkPaths[network]}"/></svg>`
}

/** A network's mark and its name. */
export function networkName(network: Network): string {
  return `<span class="net net-${network}">${networkIcon(network)}${escapeHtml(networkLabels[network])}</span>`
}

const UI_ICONS = [
  'layout-list',
  'calendar-days',
  'list-ordered',
  'file-up',
  'chart-column',
  'radio-tower',
  'webhook',
  'users',
  'bot',
  'settings',
  'plus',
  'clock',
  'hourglass',
  'send',
  'circle-check',
  'circle-alert',
  'circle-x',
  'triangle-alert',
  'file-pen',
  'ban',
  'chevrons-up-down',
  'megaphone',
  'badge-check',
  'chevron-left',
  'chevron-right',
  'calendar-clock',
  'trending-up',
  'trending-down',
  'minus',
  'copy',
  'key-round',
  'plug',
  'refresh-cw',
  'mail',
  'file-text',
  'film',
  'image',
  'external-link',
  'plug-zap',
  'search',
  'search-check',
  'search-x',
  'circle-help',
  'rotate-ccw',
  'unplug',
] as const
export type UiIcon = (typeof UI_ICONS)[number]

/** Lucide's markup inside its <svg>: its paths, rects and circles, as the package draws them. */
const uiShapes = Object.fromEntries(
  UI_ICONS.map((name) => {
    const svg = read(`lucide-static/icons/${name}.svg`)
    const inner = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(svg)?.[1]
    if (!inner) throw new Error(`the icon ${name} has no shapes`)
    return [name, inner.replace(/\s+/g, ' ').trim()]
  }),
) as Record<UiIcon, string>

/** An interface icon, drawn in the text's colour, hidden from screen readers. */
export function icon(name: UiIcon): string {
  return `<svg class="icon" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${uiShapes[name]}</svg>`
}
