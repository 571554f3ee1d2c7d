import type { VNode } from 'preact'
import { renderToString } from 'preact-render-to-string'
import { assetUrl } from './assets.js'
import type { UiIcon } from './icons.js'
import { Icon } from './parts.js'

/**
 * The frame of every dashboard page: for a signed-in person, a sidebar (the workspace they act in, a
 * persistent "Create post", the navigation, their account) that a phone shows as a compact bar; for a
 * visitor (sign-in, set-up, consent), one centred column. Rendered from JSX, so every value is escaped by
 * the renderer; a page's own body is JSX too, or HTML that a page still built as a string escaped itself.
 */

/** A page's body: JSX, or HTML escaped by the module that built it. */
export type PageBody = VNode | string

export interface ShellAccount {
  email: string
  csrfToken: string
  pendingApprovals?: number
  workspace?: string
  invitations?: number
  administrator?: boolean
  /** The path of the page shown, so its navigation link is marked current. */
  path?: string
}

interface NavEntry {
  href: string
  label: string
  icon: UiIcon
}

const NAV: NavEntry[] = [
  { href: '/posts', label: 'Posts', icon: 'layout-list' },
  { href: '/calendar', label: 'Calendar', icon: 'calendar-days' },
  { href: '/queue', label: 'Queue', icon: 'list-ordered' },
  { href: '/import', label: 'Import', icon: 'file-up' },
  { href: '/analytics', label: 'Analytics', icon: 'chart-column' },
  { href: '/channels', label: 'Channels', icon: 'radio-tower' },
]
const NAV_SETTINGS: NavEntry[] = [
  { href: '/webhooks', label: 'Webhooks', icon: 'webhook' },
  { href: '/workspace', label: 'Workspace', icon: 'users' },
  { href: '/integration', label: 'AI Integration', icon: 'bot' },
]
const NAV_ADMIN: NavEntry = { href: '/settings/networks', label: 'Network apps', icon: 'settings' }

/** A bundled icon in the box the navigation lines up. */
const BoxedIcon = ({ name }: { name: UiIcon }) => (
  <span class="icon-box" aria-hidden="true">
    <Icon name={name} />
  </span>
)

/** The link of the section the page belongs to (a post's page is under Posts); approvals have their own. */
function isCurrent(href: string, path: string | undefined): boolean {
  if (path === undefined) return false
  const [pathname = '', query = ''] = path.split('?')
  if (href === '/posts' && /(^|&)approval=pending/.test(query)) return false
  return pathname === href || pathname.startsWith(`${href}/`)
}

function NavLink({
  entry,
  path,
  children,
}: {
  entry: NavEntry
  path?: string | undefined
  children?: unknown
}) {
  return (
    <li>
      <a href={entry.href} aria-current={isCurrent(entry.href, path) ? 'page' : undefined}>
        <BoxedIcon name={entry.icon} />
        {entry.label}
        {children as never}
      </a>
    </li>
  )
}

function Sidebar({ who }: { who: ShellAccount }) {
  const pending = who.pendingApprovals ?? 0
  return (
    <header class="sidebar">
      <a class="brand" href="/posts">
        <span class="brand-mark" aria-hidden="true">
          <Icon name={'megaphone'} />
        </span>
        Herald
      </a>
      {who.workspace ? (
        <a class="workspace-switch" href="/workspaces">
          <span>
            <span class="hint">Acting in</span>
            <span class="name">{who.workspace}</span>
          </span>
          <BoxedIcon name="chevrons-up-down" />
        </a>
      ) : null}
      <a class="button primary create-post" href="/compose">
        <BoxedIcon name="plus" />
        Create post
      </a>
      <div class="menu">
        <nav aria-label="Dashboard">
          <ul class="nav">
            {NAV.slice(0, 1).map((entry) => (
              <NavLink entry={entry} path={who.path} />
            ))}
            {pending > 0 ? (
              <li>
                <a
                  href="/posts?approval=pending"
                  class="pending"
                  aria-current={/[?&]approval=pending/.test(who.path ?? '') ? 'page' : undefined}
                >
                  <BoxedIcon name="badge-check" />
                  Pending approval <span class="count">{pending}</span>
                </a>
              </li>
            ) : null}
            {NAV.slice(1).map((entry) => (
              <NavLink entry={entry} path={who.path} />
            ))}
          </ul>
          <ul class="nav nav-secondary">
            {[...NAV_SETTINGS, ...(who.administrator ? [NAV_ADMIN] : [])].map((entry) => (
              <NavLink entry={entry} path={who.path} />
            ))}
          </ul>
        </nav>
        <div class="account">
          <span class="email">{who.email}</span>
          <form method="post" action="/logout">
            <input type="hidden" name="csrf" value={who.csrfToken} />
            <button type="submit">Sign out</button>
          </form>
        </div>
      </div>
    </header>
  )
}

function Invitations({ count }: { count: number }) {
  if (count <= 0) return null
  return (
    <div class="notice" role="status">
      <p>
        You have {count} invitation{count === 1 ? '' : 's'} to join a workspace.{' '}
        <a href="/invitations">Review {count === 1 ? 'it' : 'them'}</a>: you join only if you accept.
      </p>
    </div>
  )
}

function Footer() {
  return (
    <footer class="site-footer">
      <p>
        For developers: <a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI document</a> · MCP
        endpoint <code>/mcp</code>
      </p>
    </footer>
  )
}

/** A whole page around its body. */
export function renderShell(title: string, body: PageBody, who: ShellAccount | undefined): string {
  const tree = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${title} · Herald`}</title>
        <link rel="stylesheet" href={assetUrl('herald.css')} />
      </head>
      <body class={who ? 'member' : 'visitor'}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <div class="app">
          {who ? (
            <Sidebar who={who} />
          ) : (
            <header>
              <a class="brand" href="/">
                <span class="brand-mark" aria-hidden="true">
                  <Icon name={'megaphone'} />
                </span>
                Herald
              </a>
            </header>
          )}
          <main id="main" class="content">
            <div class="inner">
              <Invitations count={who?.invitations ?? 0} />
              {typeof body === 'string' ? (
                <div class="page-body" dangerouslySetInnerHTML={{ __html: body }} />
              ) : (
                <div class="page-body">{body}</div>
              )}
            </div>
          </main>
          <Footer />
        </div>
      </body>
    </html>
  )
  return `<!doctype html>\n${renderToString(tree)}`
}
