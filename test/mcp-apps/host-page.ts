import {
  AppBridge,
  type McpUiHostContext,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge'

/**
 * The test host's page script, bundled by esbuild when the test starts: it renders a view the way an
 * assistant does, in a sandboxed frame (scripts only, an opaque origin), with the extension SDK's own
 * AppBridge speaking to it; tool calls from the view go to the test (an exposed function), which makes
 * them over MCP against the sandbox Herald.
 */

interface Mount {
  html: string
  input: Record<string, unknown>
  result: Record<string, unknown>
  theme: 'light' | 'dark'
  mode: 'inline' | 'fullscreen'
  width: number
  height: number
}

declare global {
  interface Window {
    heraldCall(params: { name: string; arguments?: Record<string, unknown> }): Promise<any>
    mountView(mount: Mount): Promise<void>
    opened: string[]
    modes: string[]
  }
}

window.opened = []
window.modes = []

window.mountView = async (mount) => {
  document.getElementById('frame')?.remove()
  const frame = document.createElement('iframe')
  frame.id = 'frame'
  frame.title = 'Herald view'
  frame.setAttribute('sandbox', 'allow-scripts')
  frame.width = String(mount.width)
  frame.height = String(mount.height)
  document.body.append(frame)
  const hostContext: McpUiHostContext = {
    theme: mount.theme,
    displayMode: mount.mode,
    availableDisplayModes: ['inline', 'fullscreen'],
    containerDimensions: { width: mount.width, maxHeight: mount.height },
    platform: 'web',
    timeZone: 'America/New_York',
    // What Claude-like hosts hand over: their font stack and colours, and the fonts' own rules.
    styles: {
      // The SDK's type names every variable a host may send; a host sends those it has.
      variables: { '--font-sans': '"Host Sans", system-ui, sans-serif' } as never,
      css: { fonts: '@font-face { font-family: "Host Sans"; src: local("DejaVu Sans"); }' },
    },
  }
  const bridge = new AppBridge(
    null,
    { name: 'herald-test-host', version: '1.0.0' },
    { serverTools: {}, openLinks: {} },
    { hostContext: { ...hostContext } },
  )
  // Expanding gives the frame the whole window, as a host's fullscreen does.
  bridge.onrequestdisplaymode = async ({ mode }) => {
    window.modes.push(mode)
    if (mode === 'fullscreen') {
      frame.width = String(window.innerWidth - 20)
      frame.height = String(window.innerHeight - 20)
    }
    bridge.setHostContext({ ...hostContext, displayMode: mode === 'fullscreen' ? 'fullscreen' : 'inline' })
    return { mode }
  }
  bridge.oncalltool = async (params) => window.heraldCall(params)
  bridge.onopenlink = async ({ url }) => {
    window.opened.push(url)
    return {}
  }
  // An inline frame grows to what the view says it needs, up to the height the host gives.
  bridge.onsizechange = ({ height }) => {
    if (mount.mode === 'inline' && height) frame.height = String(Math.min(height, mount.height))
  }
  const ready = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve()
  })
  await bridge.connect(new PostMessageTransport(frame.contentWindow as Window, frame.contentWindow as Window))
  frame.srcdoc = mount.html
  await ready
  await bridge.sendToolInput({ arguments: mount.input })
  await bridge.sendToolResult(mount.result as never)
}
