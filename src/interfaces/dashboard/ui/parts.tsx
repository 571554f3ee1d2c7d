import { icon, type UiIcon } from './icons.js'
import { chipParts, type ShownState } from './status-chip.js'

/**
 * Small pieces the dashboard's JSX pages share. Icons are trusted, bundled SVG strings (src/interfaces/
 * dashboard/ui/icons.ts), so they are the only markup passed through as it is; every word is the renderer's
 * to escape.
 */

/** An interface icon, decoration beside a word that says the same. */
export const Icon = ({ name }: { name: UiIcon }) => (
  <span class="icon-box" aria-hidden="true" dangerouslySetInnerHTML={{ __html: icon(name) }} />
)

/** A state's chip: its icon and its word (never colour alone), the same markup as `statusChip`. */
export function Chip({ state }: { state: ShownState }) {
  const { className, inner } = chipParts(state)
  return <span class={className} dangerouslySetInnerHTML={{ __html: inner }} />
}
