/**
 * The views Herald shows inside an assistant (MCP Apps, extension revision 2026-01-26): each is one `ui://`
 * resource, a self-contained HTML page the host renders in a sandboxed frame beside the conversation, linked
 * from the tools whose answers it shows. The tools' answers stay exactly what they are without a view.
 */

/** The MIME type the extension gives an MCP App's HTML (the SDK's RESOURCE_MIME_TYPE). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app'

/** The tool metadata key older hosts read, before `_meta.ui.resourceUri` (the SDK's RESOURCE_URI_META_KEY). */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri'

/** Where list_posts' result carries the queue view's free posting times (`_meta`). */
export const FREE_SLOTS_META_KEY = 'herald/freeSlots'

/** One free posting time of a profile's queue, as the queue view shows it. */
export interface FreeSlot {
  platform: string
  username: string
  scheduleDate: string
  scheduleTime: string
  timezone: string
}

export type ViewName = 'compose' | 'queue' | 'status' | 'analytics'

export interface ViewDefinition {
  name: ViewName
  uri: string
  title: string
  description: string
  /** The tools whose answers this view shows. */
  tools: readonly string[]
}

export const views: readonly ViewDefinition[] = [
  {
    name: 'compose',
    uri: 'ui://herald/compose.html',
    title: 'Post preview',
    description:
      'The post as each network will show it, its blockers, warnings and price, with Schedule and Publish now.',
    tools: ['preflight_post', 'create_post'],
  },
  {
    name: 'queue',
    uri: 'ui://herald/queue.html',
    title: 'Posting queue',
    description: "The listed posts by day, each profile's status, and each post's details on a click.",
    tools: ['list_posts'],
  },
  {
    name: 'status',
    uri: 'ui://herald/status.html',
    title: 'What happened',
    description: "Each profile's status, its live link or its error, and Retry failed profiles.",
    tools: ['get_post', 'publish_post_now', 'reset_stuck_post'],
  },
  {
    name: 'analytics',
    uri: 'ui://herald/analytics.html',
    title: 'Analytics',
    description: 'The stored readings, totals and per profile, with an explicit Refresh (1 credit).',
    tools: ['get_post_analytics', 'get_profile_analytics'],
  },
]

/** The view a tool links to, if any. */
export const viewOfTool = (toolName: string): ViewDefinition | undefined =>
  views.find((view) => view.tools.includes(toolName))

/**
 * What a view may offer, decided for the caller when the host reads the view: a button is drawn only when
 * the caller's token allows the call it makes (a `posts:read` token's preview has no Schedule).
 */
export interface ViewPermissions {
  /** preflight_post: check the post again after an edit. */
  check: boolean
  /** create_post: Schedule and Publish now. */
  create: boolean
  /** publish_post_now: Retry failed profiles. */
  retry: boolean
  /** get_post: open a post of the queue. */
  open: boolean
  /** The analytics tools with `refresh: true` (1 credit). */
  refresh: boolean
}

/** What the page's script is handed, in a JSON data island: never a credential. */
export interface ViewBootData {
  view: ViewName
  can: ViewPermissions
  /** Each network's mark as SVG path data, the dashboard's own icons (the frame may fetch none). */
  marks: Record<string, string>
}
