import type { ComponentChildren } from 'preact'
import { type Network, networkLabels } from '../../../core/networks.js'
import { icon, networkIcon, type UiIcon } from './icons.js'
import { trusted } from './trusted.js'

/** The small parts every page is made of, as JSX: escaped by the renderer, icons from the bundled set. */

/** A bundled icon, decoration beside the words that say the same. */
export const Icon = ({ name }: { name: UiIcon }) => trusted(icon(name))

/** A network's bundled mark. */
export const NetworkIcon = ({ network }: { network: Network }) => trusted(networkIcon(network))

/** The session's CSRF token in a form. */
export const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="csrf" value={token} />

/** A page's notice after a change that worked, and its problem after one that did not. */
export function Messages({ notice, problem }: { notice?: string | undefined; problem?: string | undefined }) {
  return (
    <>
      {notice ? (
        <div class="notice" role="status">
          <p>{notice}</p>
        </div>
      ) : null}
      {problem ? (
        <div class="problem" role="alert">
          <p>{problem}</p>
        </div>
      ) : null}
    </>
  )
}

/**
 * What a page says while it has nothing to show: what it will show, in a manager's words, and the one
 * button that fills it (a link styled as a button, or a form).
 */
export function EmptyState({
  text,
  action,
}: {
  text: string
  action: { href: string; label: string } | { form: ComponentChildren }
}) {
  return (
    <div class="empty">
      <p>{text}</p>
      {'form' in action ? (
        action.form
      ) : (
        <a class="button" href={action.href}>
          {action.label}
        </a>
      )}
    </div>
  )
}

/** The box around a table that may scroll sideways on a phone: a named region a keyboard can focus to scroll. */
export function TableCard({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a scrolling box around a table, not a section of the page's outline.
    <div class="table-card" tabindex={0} role="region" aria-label={label}>
      {children}
    </div>
  )
}

/** A network's mark and name. */
export const NetworkName = ({ network }: { network: Network }) => (
  <span class={`net net-${network}`}>
    <NetworkIcon network={network} />
    {networkLabels[network]}
  </span>
)
