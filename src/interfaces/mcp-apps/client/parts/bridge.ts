/**
 * The view's side of MCP Apps (extension revision 2026-01-26), written out by hand: JSON-RPC 2.0 over
 * postMessage with the host's window. The view initializes, then hears the tool's arguments, its result and
 * the host's context (theme, styles, display mode), and asks the host to call Herald's tools, open a link
 * or change its size. Hand-written rather than the SDK's App class, whose bundle with its dependencies is
 * about half a megabyte that every view would carry inline; the test host speaks to it with the SDK's own
 * AppBridge, so the two are held to the same protocol.
 */

export const PROTOCOL_VERSION = '2026-01-26'

export type Json = Record<string, unknown>

export interface HostContext {
  theme?: 'light' | 'dark'
  styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } }
  displayMode?: 'inline' | 'fullscreen' | 'pip'
  availableDisplayModes?: string[]
  toolInfo?: { tool?: { name?: string } }
  /** The person's zone (IANA), where the host knows it. */
  timeZone?: string
  [key: string]: unknown
}

/** A tool's answer as MCP carries it. */
export interface ToolResult {
  content?: Array<{ type: string; text?: string }>
  structuredContent?: Json
  isError?: boolean
  _meta?: Json
}

export interface HostEvents {
  onToolInput(args: Json): void
  onToolResult(result: ToolResult): void
  onContext(context: HostContext): void
}

export interface Host {
  context: HostContext
  callTool(name: string, args: Json): Promise<ToolResult>
  openLink(url: string): Promise<void>
  requestDisplayMode(mode: 'inline' | 'fullscreen'): Promise<void>
}

interface Pending {
  resolve(value: unknown): void
  reject(error: Error): void
}

/** Thrown when the host answers a request with a JSON-RPC error. */
export class HostError extends Error {}

export async function connectToHost(events: HostEvents): Promise<Host> {
  const parent = window.parent
  const pending = new Map<number, Pending>()
  let nextId = 1
  const post = (message: Json) => parent.postMessage({ jsonrpc: '2.0', ...message }, '*')
  const request = (method: string, params: Json) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      post({ id, method, params })
    })
  const notify = (method: string, params: Json = {}) => post({ method, params })

  const host: Host = {
    context: {},
    callTool: async (name, args) => (await request('tools/call', { name, arguments: args })) as ToolResult,
    openLink: async (url) => {
      await request('ui/open-link', { url })
    },
    requestDisplayMode: async (mode) => {
      await request('ui/request-display-mode', { mode })
    },
  }

  window.addEventListener('message', (event) => {
    // Only the window that holds this frame speaks for the host.
    if (event.source !== parent) return
    const message = event.data as {
      id?: number
      method?: string
      params?: Json
      result?: unknown
      error?: Json
    }
    if (!message || typeof message !== 'object') return
    if (message.method === undefined && typeof message.id === 'number') {
      const waiting = pending.get(message.id)
      if (!waiting) return
      pending.delete(message.id)
      if (message.error) waiting.reject(new HostError(String(message.error.message ?? 'The host refused')))
      else waiting.resolve(message.result)
      return
    }
    const params = message.params ?? {}
    if (message.method === 'ui/notifications/tool-input') events.onToolInput((params.arguments as Json) ?? {})
    else if (message.method === 'ui/notifications/tool-result') events.onToolResult(params as ToolResult)
    else if (message.method === 'ui/notifications/host-context-changed') {
      host.context = { ...host.context, ...(params as HostContext) }
      events.onContext(host.context)
    } else if (message.id !== undefined && message.method) {
      // Teardown and ping ask only for an answer; anything else this view does not offer.
      const known = message.method === 'ui/resource-teardown' || message.method === 'ping'
      post(
        known
          ? { id: message.id, result: {} }
          : { id: message.id, error: { code: -32601, message: `${message.method} is not offered` } },
      )
    }
  })

  const answer = (await request('ui/initialize', {
    appInfo: { name: 'herald-view', version: '1' },
    appCapabilities: { availableDisplayModes: ['inline', 'fullscreen'] },
    protocolVersion: PROTOCOL_VERSION,
  })) as { hostContext?: HostContext }
  host.context = answer.hostContext ?? {}
  events.onContext(host.context)
  notify('ui/notifications/initialized')
  watchSize(notify)
  return host
}

/** Tells the host the page's height whenever it changes, so an inline frame fits what it shows. */
function watchSize(notify: (method: string, params: Json) => void) {
  let last = 0
  const send = () => {
    const height = Math.ceil(document.body.scrollHeight)
    if (height === last) return
    last = height
    notify('ui/notifications/size-changed', { height })
  }
  new ResizeObserver(send).observe(document.body)
  send()
}
