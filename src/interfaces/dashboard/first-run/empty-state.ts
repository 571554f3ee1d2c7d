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

/** The empty-state box, and the one action a page's first use leads to (a link or a button, in blue). */
export const EMPTY_STYLE = `.empty{border:1px dashed #c5ceda;border-radius:.4rem;padding:.2rem 1rem 1rem;margin:1rem 0}
a.button,button.primary{display:inline-block;padding:.4rem .95rem;border:1px solid #1a56c4;border-radius:.25rem;background:#1a56c4;color:#fff;text-decoration:none;font:inherit}
a.button:hover,a.button:focus,button.primary:hover,button.primary:focus{background:#123f91}`
