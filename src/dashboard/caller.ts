import type { Caller } from '../auth/caller.js'
import type { SignedIn } from './request.js'

/**
 * The person behind a dashboard session as the tool runner knows callers. The session stands in for a key
 * (rate limits and logs name it `session:<id>`), so the dashboard calls the same tools an agent does.
 */
export const callerOf = (who: SignedIn): Caller => ({
  userId: who.user.id,
  apiKeyId: `session:${who.session.id}`,
  defaultWorkspaceId: who.workspace.id,
})
