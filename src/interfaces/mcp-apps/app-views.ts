import { networks } from '../../core/networks.js'
import type { Caller } from '../../modules/accounts/caller.js'
import type { AppContext } from '../../modules/app-context.js'
import { scopeRefusal } from '../../modules/oauth-server/scopes.js'
import { assetText } from '../dashboard/ui/assets.js'
import { networkPath } from '../dashboard/ui/icons.js'
import type { McpAppViews } from '../http/mcp-app-views.js'
import type { AnyTool } from '../tools/tool.js'
import { viewDocument } from './document.js'
import { freeSlotsMeta } from './free-slots-meta.js'
import { previewMeta } from './preview-meta.js'
import {
  APP_MIME_TYPE,
  LEGACY_RESOURCE_URI_KEY,
  type ViewDefinition,
  type ViewPermissions,
  viewOfTool,
  views,
} from './views.js'

/**
 * The MCP Apps views as the MCP server serves them: the UI link on each tool that has a view, the views as
 * resources (the same page over every protocol revision and transport), and the previews a compose view
 * shows. The pages' files are the ones bin/build-assets.js bundles, read once on first use.
 */

/** The view's declared needs for the host's sandbox: nothing but images and video from Herald itself. */
function resourceMeta(mediaOrigin: string) {
  return {
    ui: {
      csp: { resourceDomains: [mediaOrigin], connectDomains: [] },
      prefersBorder: true,
    },
  }
}

/** Which of the view's calls this caller's token allows (API keys and sessions allow all). */
function permissionsOf(caller: Caller, tools: readonly AnyTool[]): ViewPermissions {
  const allows = (name: string, args?: Record<string, unknown>) => {
    const tool = tools.find((t) => t.name === name)
    return tool !== undefined && scopeRefusal(caller, tool, args) === undefined
  }
  return {
    check: allows('preflight_post'),
    create: allows('create_post'),
    retry: allows('publish_post_now'),
    open: allows('get_post'),
    refresh: allows('get_post_analytics', { refresh: true }),
  }
}

export function createMcpAppViews(app: AppContext, tools: readonly AnyTool[]): McpAppViews {
  const mediaOrigin = new URL(app.config.publicBaseUrl).origin
  const files = new Map<string, { css: string; script: string }>()
  const marks = Object.fromEntries(networks.map((network) => [network, networkPath(network)]))
  const filesOf = (view: ViewDefinition) => {
    let found = files.get(view.name)
    if (!found) {
      found = { css: assetText('mcp-app.css'), script: assetText(`mcp-app-${view.name}.js`) }
      files.set(view.name, found)
    }
    return found
  }
  return {
    toolMeta(toolName) {
      const view = viewOfTool(toolName)
      if (!view) return undefined
      // Both spellings: `ui.resourceUri` is the extension's, `ui/resourceUri` what hosts before it read.
      return { ui: { resourceUri: view.uri }, [LEGACY_RESOURCE_URI_KEY]: view.uri }
    },
    list: () => ({
      resources: views.map((view) => ({
        uri: view.uri,
        name: view.name,
        title: view.title,
        description: view.description,
        mimeType: APP_MIME_TYPE,
        _meta: resourceMeta(mediaOrigin),
      })),
    }),
    read(uri, caller) {
      const view = views.find((v) => v.uri === uri)
      if (!view) return undefined
      const { css, script } = filesOf(view)
      const text = viewDocument({
        title: view.title,
        css,
        script,
        mediaOrigin,
        boot: { view: view.name, can: permissionsOf(caller, tools), marks },
      })
      return { contents: [{ uri, mimeType: APP_MIME_TYPE, text, _meta: resourceMeta(mediaOrigin) }] }
    },
    resultMeta: async (toolName, args, result, caller) =>
      toolName === 'list_posts'
        ? freeSlotsMeta(app, workspaceOf(args, caller))
        : previewMeta(app, toolName, args, result),
  }
}

/** The workspace a tool acted in: the one it was given, else the caller's default (the runner's own rule). */
const workspaceOf = (args: Record<string, unknown>, caller: Caller) =>
  typeof args.workspaceId === 'string' ? args.workspaceId : caller.defaultWorkspaceId
