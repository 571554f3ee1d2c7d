import type { VNode } from 'preact'
import { jsxTemplate } from 'preact/jsx-runtime'

/**
 * HTML placed as it is, with no element around it: only for what Herald itself made, never for a value a
 * person or a network gave. Two things need it: the bundled SVG icons (ui/icons.ts, read from the icon
 * packages' own files), and the parts of a page still built as strings by modules that escape by hand
 * (Compose and the post page). Everything else a page shows is JSX, escaped by the renderer.
 */
export const trusted = (html: string): VNode => jsxTemplate([html])
