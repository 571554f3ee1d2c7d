import type { Db } from '../../platform/db/db.js'

/**
 * Everything Herald holds about a person and their workspaces, as one JSON document (the dashboard's "Your
 * data", `herald accounts export`): their account, sessions and API keys (never a token or hash), the apps
 * they authorised, and for each workspace they belong to its members, connections (never their tokens),
 * posting queues and posts with their deliveries; for the workspaces they own, also the credit ledger and
 * the webhook endpoints (never their secrets), as owners alone see those.
 */

const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString()

export async function personalExport(db: Db, userId: string, now: number) {
  const user = await db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'created_at', 'is_admin'])
    .where('id', '=', userId)
    .executeTakeFirst()
  if (!user) return undefined
  const [memberships, sessions, keys, grants] = await Promise.all([
    db
      .selectFrom('memberships')
      .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
      .select(['workspaces.id', 'workspaces.name', 'memberships.role', 'memberships.created_at'])
      .where('memberships.user_id', '=', userId)
      .execute(),
    db
      .selectFrom('sessions')
      .select(['workspace_id', 'created_at', 'expires_at'])
      .where('user_id', '=', userId)
      .execute(),
    db
      .selectFrom('api_keys')
      .select(['name', 'prefix', 'default_workspace_id', 'created_at', 'last_used_at', 'revoked_at'])
      .where('user_id', '=', userId)
      .execute(),
    db
      .selectFrom('oauth_grants')
      .select([
        'client_name',
        'client_id',
        'workspace_id',
        'scopes',
        'created_at',
        'last_used_at',
        'revoked_at',
      ])
      .where('user_id', '=', userId)
      .execute(),
  ])
  const workspaces = []
  for (const m of memberships) workspaces.push(await workspaceOf(db, m.id, m.role === 'owner'))
  return {
    exportedAt: iso(now),
    person: {
      id: user.id,
      email: user.email,
      name: user.name,
      createdAt: iso(user.created_at),
      administrator: user.is_admin === 1,
    },
    memberships: memberships.map((m) => ({
      workspaceId: m.id,
      workspace: m.name,
      role: m.role,
      since: iso(m.created_at),
    })),
    sessions: sessions.map((s) => ({
      workspaceId: s.workspace_id,
      createdAt: iso(s.created_at),
      expiresAt: iso(s.expires_at),
    })),
    apiKeys: keys.map((k) => ({
      name: k.name,
      prefix: k.prefix,
      workspaceId: k.default_workspace_id,
      createdAt: iso(k.created_at),
      lastUsedAt: iso(k.last_used_at),
      revokedAt: iso(k.revoked_at),
    })),
    authorisedApps: grants.map((g) => ({
      app: g.client_name,
      clientId: g.client_id,
      workspaceId: g.workspace_id,
      scopes: g.scopes.split(' '),
      createdAt: iso(g.created_at),
      lastUsedAt: iso(g.last_used_at),
      revokedAt: iso(g.revoked_at),
    })),
    workspaces,
  }
}

async function workspaceOf(db: Db, workspaceId: string, owner: boolean) {
  const [workspace, members, connections, queues, posts, targets] = await Promise.all([
    db
      .selectFrom('workspaces')
      .select(['id', 'name', 'plan', 'credit_balance', 'created_at'])
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['users.name', 'users.email', 'memberships.role'])
      .where('memberships.workspace_id', '=', workspaceId)
      .execute(),
    db
      .selectFrom('connections')
      .select(['id', 'platform', 'profile_id', 'username', 'name', 'status', 'created_at'])
      .where('workspace_id', '=', workspaceId)
      .execute(),
    db
      .selectFrom('posting_queues')
      .select(['connection_id', 'timezone', 'slots'])
      .where('workspace_id', '=', workspaceId)
      .execute(),
    db
      .selectFrom('posts')
      .select([
        'id',
        'author_id',
        'content',
        'media_urls',
        'status',
        'schedule_date',
        'schedule_time',
        'timezone',
        'approval',
        'approval_note',
        'created_at',
        'published_at',
      ])
      .where('workspace_id', '=', workspaceId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('targets')
      .select(['post_id', 'platform', 'profile_id', 'status', 'remote_id', 'url', 'error', 'published_at'])
      .where('workspace_id', '=', workspaceId)
      .execute(),
  ])
  const byPost = new Map<string, typeof targets>()
  for (const t of targets) byPost.set(t.post_id, [...(byPost.get(t.post_id) ?? []), t])
  return {
    id: workspace.id,
    name: workspace.name,
    plan: workspace.plan,
    credits: Number(workspace.credit_balance),
    createdAt: iso(workspace.created_at),
    members: members.map((m) => ({ name: m.name, email: m.email, role: m.role })),
    connections: connections.map((c) => ({
      platform: c.platform,
      profileId: c.profile_id,
      username: c.username,
      name: c.name,
      status: c.status,
      connectedAt: iso(c.created_at),
    })),
    postingQueues: queues.map((q) => ({
      connectionId: q.connection_id,
      timezone: q.timezone,
      slots: JSON.parse(q.slots),
    })),
    posts: posts.map((p) => ({
      id: p.id,
      authorId: p.author_id,
      content: p.content,
      mediaUrls: JSON.parse(p.media_urls),
      status: p.status,
      slot: { date: p.schedule_date, time: p.schedule_time, timezone: p.timezone },
      approval: p.approval ? { state: p.approval, note: p.approval_note ?? null } : null,
      createdAt: iso(p.created_at),
      publishedAt: iso(p.published_at),
      deliveries: (byPost.get(p.id) ?? []).map((t) => ({
        platform: t.platform,
        profileId: t.profile_id,
        status: t.status,
        remoteId: t.remote_id,
        url: t.url,
        error: t.error,
        publishedAt: iso(t.published_at),
      })),
    })),
    ...(owner ? await ownerPartsOf(db, workspaceId) : {}),
  }
}

async function ownerPartsOf(db: Db, workspaceId: string) {
  const [ledger, endpoints] = await Promise.all([
    db
      .selectFrom('credit_ledger')
      .select(['delta', 'reason', 'reference', 'balance_after', 'created_at'])
      .where('workspace_id', '=', workspaceId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('webhook_endpoints')
      .select(['url', 'description', 'event_types', 'enabled', 'created_at'])
      .where('workspace_id', '=', workspaceId)
      .execute(),
  ])
  return {
    creditLedger: ledger.map((l) => ({
      delta: Number(l.delta),
      reason: l.reason,
      reference: l.reference,
      balanceAfter: Number(l.balance_after),
      at: iso(l.created_at),
    })),
    webhookEndpoints: endpoints.map((e) => ({
      url: e.url,
      description: e.description,
      eventTypes: JSON.parse(e.event_types),
      enabled: e.enabled === 1,
      createdAt: iso(e.created_at),
    })),
  }
}
