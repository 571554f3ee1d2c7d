import { escapeHtml } from '../html.js'

/**
 * What a page says while it has nothing to show: what it will show, in a manager's words, and the one
 * button that fills it (a link styled as a button, or a form given as HTML).
 */
export function emptyState(text: string, action: { href: string; label: string } | { html: string }) {
  const button =
    'html' in action
      ? action.html
      : `<a class="button" href="${escapeHtml(action.href)}">${escapeHtml(action.label)}</a>`
  return `<div class="empty"><p>${escapeHtml(text)}</p>${button}</div>`
}
