import type { FunctionComponent } from 'preact'
import { render } from 'preact'
import type { ViewBootData } from '../../views.js'
import { connectToHost, type Host, type HostContext, type Json, type ToolResult } from './bridge.js'

/**
 * What every view starts with: the permissions Herald wrote into the page, the connection to the host, and a
 * render of the view each time the host says something new (the arguments, the result, the theme).
 */

export interface ViewProps {
  host: Host
  can: ViewBootData['can']
  /** The arguments of the tool call the view shows, once the host sent them. */
  input: Json | undefined
  /** The tool call's result, once the host sent it. */
  result: ToolResult | undefined
}

/** The host's theme, style variables and fonts on the page (Herald's own where the host gives none). */
function applyContext(context: HostContext) {
  const root = document.documentElement
  if (context.theme) {
    root.dataset.theme = context.theme
    root.style.colorScheme = context.theme
  }
  for (const [name, value] of Object.entries(context.styles?.variables ?? {}))
    if (name.startsWith('--') && typeof value === 'string') root.style.setProperty(name, value)
  if (context.displayMode) root.dataset.display = context.displayMode
  applyHostFonts(context.styles?.css?.fonts)
}

let hostFonts: CSSStyleSheet | undefined

/**
 * The host's `@font-face` rules, as a stylesheet built by the script: the page's policy lets run only its
 * own stylesheet by hash, so a `<style>` element added now would be refused. A constructed sheet takes no
 * `@import` (the browser drops those rules); fonts the host names by `@font-face` load from where it says.
 */
function applyHostFonts(fonts: string | undefined) {
  if (typeof fonts !== 'string' || fonts.trim() === '') return
  if (!hostFonts) {
    hostFonts = new CSSStyleSheet()
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, hostFonts]
  }
  hostFonts.replaceSync(fonts)
}

/** A tool result's structured answer, or undefined for an error result. */
export const answerOf = <T,>(result: ToolResult | undefined): T | undefined =>
  result && !result.isError ? (result.structuredContent as T | undefined) : undefined

/** An error result's message in words, from Herald's error JSON. */
export function errorOf(result: ToolResult | undefined): string | undefined {
  if (!result?.isError) return undefined
  try {
    const body = JSON.parse(result.content?.[0]?.text ?? '{}') as { error?: { message?: string } }
    return body.error?.message ?? 'Herald could not do that.'
  } catch {
    return result.content?.[0]?.text ?? 'Herald could not do that.'
  }
}

/** The networks' marks Herald wrote into the page, by network. */
export let marks: Record<string, string> = {}

export function mountView(View: FunctionComponent<ViewProps>) {
  const main = document.getElementById('view') as HTMLElement
  const boot = JSON.parse(document.getElementById('boot')?.textContent ?? '{}') as ViewBootData
  marks = boot.marks ?? {}
  let input: Json | undefined
  let result: ToolResult | undefined
  let host: Host | undefined
  const draw = () => {
    if (host) render(<View host={host} can={boot.can} input={input} result={result} />, main)
  }
  void connectToHost({
    onToolInput(args) {
      input = args
      draw()
    },
    onToolResult(answer) {
      result = answer
      draw()
    },
    onContext(context) {
      applyContext(context)
      // A new display mode or size can change the layout (the queue's week calendar when expanded).
      draw()
    },
  }).then((connected) => {
    host = connected
    main.replaceChildren()
    draw()
  })
}
