import type { Harness } from './harness.js'

/** A second person in the harness workspace, with their own API key and dashboard password. */
export interface Member {
  userId: string
  email: string
  password: string
  apiKey: string
}

export async function addMember(
  h: Harness,
  name: string,
  role: 'owner' | 'editor' = 'editor',
): Promise<Member> {
  const email = `${name}-${Date.now()}-${Math.random().toString(16).slice(2, 8)}@example.com`
  const password = 'another long password'
  const { userId } = await h.app.accounts.createUser({ email, password, name })
  await h.app.accounts.addMember({ workspaceId: h.workspaceId, email, role })
  const { apiKey } = await h.app.accounts.createKey({ email, workspaceId: h.workspaceId })
  return { userId, email, password, apiKey }
}

/** Calls one of the management paths (approvals, queues, imports) with an API key. */
export async function manage(
  h: Harness,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  options: { key?: string; contentType?: string } = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${h.baseUrl}${path}`, {
    method,
    headers: {
      'x-api-key': options.key ?? h.apiKey,
      ...(body === undefined ? {} : { 'content-type': options.contentType ?? 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: response.status, body: parsed }
}

/** The workspace's ledger, oldest first. */
export async function ledger(h: Harness) {
  return h.app.store.db
    .selectFrom('credit_ledger')
    .select(['delta', 'reason', 'reference', 'balance_after'])
    .where('workspace_id', '=', h.workspaceId)
    .orderBy('id')
    .execute()
}
