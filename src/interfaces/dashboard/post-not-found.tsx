import { toAppError } from '../../platform/errors.js'
import { NextLink, problemPage, sendHtml } from './html.js'
import { account, type SignedIn } from './request.js'

/**
 * The page for a post that cannot be shown (another workspace's, deleted, or an id that was never one): the
 * tool's own words, 404 for a missing post and 400 for an id it refused, and a way back to where the person
 * came from.
 */
export function sendPostNotFound(
  reply: Parameters<typeof sendHtml>[0],
  who: SignedIn,
  error: unknown,
  back: { href: string; label: string },
) {
  const appError = toAppError(error)
  return sendHtml(
    reply,
    appError.code === 'not_found' ? 404 : 400,
    problemPage('Post not found', appError.message, {
      signedIn: account(who),
      next: <NextLink href={back.href} label={back.label} />,
    }),
  )
}
