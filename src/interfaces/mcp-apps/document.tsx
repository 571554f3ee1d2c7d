import { createHash } from 'node:crypto'
import { renderToString } from 'preact-render-to-string'
import type { ViewBootData } from './views.js'

/**
 * A view's whole page, as the host loads it into its sandboxed frame: the stylesheet and the script inline
 * (the frame may fetch nothing but Herald's media), the caller's permissions in a JSON data island, and a
 * Content-Security-Policy of its own that lets run only these two blocks, by their hashes.
 */

export interface ViewDocumentParts {
  title: string
  css: string
  script: string
  boot: ViewBootData
  /** Herald's own origin: the only place the page may load an image or a video from. */
  mediaOrigin: string
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`

/** JSON that cannot end its script element early, whatever the strings in it hold. */
const jsonInScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')

export class ViewBundleError extends Error {}

/** The policy the page holds itself to, whatever the host adds around it. */
export function viewPolicy(parts: Pick<ViewDocumentParts, 'css' | 'script' | 'mediaOrigin'>): string {
  return [
    "default-src 'none'",
    `script-src ${sha256(parts.script)}`,
    `style-src ${sha256(parts.css)}`,
    `img-src ${parts.mediaOrigin} data:`,
    `media-src ${parts.mediaOrigin}`,
    // The host's own fonts, when it hands them over (`@font-face` rules naming its font files); a font
    // cannot run, and what could name one is only this page's hashed script and the host itself.
    'font-src https: data:',
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
}

export function viewDocument(parts: ViewDocumentParts): string {
  // A bundle that held "</script" or "</style" would end its element early and show the rest as text.
  if (/<\/script/i.test(parts.script) || /<\/style/i.test(parts.css))
    throw new ViewBundleError(`The ${parts.boot.view} view's bundle closes its own element`)
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta http-equiv="Content-Security-Policy" content={viewPolicy(parts)} />
        <meta name="color-scheme" content="light dark" />
        <title>{parts.title}</title>
        <style dangerouslySetInnerHTML={{ __html: parts.css }} />
      </head>
      <body>
        <main id="view">
          <p class="waiting">Waiting for Herald’s answer…</p>
        </main>
        <script
          type="application/json"
          id="boot"
          dangerouslySetInnerHTML={{ __html: jsonInScript(parts.boot) }}
        />
        <script type="module" dangerouslySetInnerHTML={{ __html: parts.script }} />
      </body>
    </html>
  )
  return `<!doctype html>${renderToString(page)}`
}
