import type { FastifyError, FastifyInstance } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import { parseForm } from '../../platform/form.js'
import { serveScopeWith } from '../http/security-headers.js'
import type { ToolRunner } from '../tools/runner.js'
import { registerAnalyticsRoutes } from './analytics.js'
import { registerAuthRoutes } from './auth-routes.js'
import { registerCalendarRoutes } from './calendar.js'
import { registerChannelRoutes } from './channels.js'
import { registerComposeRoutes, UPLOAD_TYPES } from './compose.js'
import { registerConnectRoutes } from './connect-routes.js'
import { registerConsentRoutes } from './consent.js'
import { registerOnboardingRoutes } from './first-run/onboarding.js'
import { createClaimCheck, registerSetupRoutes } from './first-run/setup.js'
import { dashboardHeaders, problemPage, sendHtml } from './html.js'
import { CSV_TYPES, MAX_IMPORT_BYTES, registerImportRoutes } from './import.js'
import { registerIntegrationRoutes } from './integration.js'
import { registerInvitationRoutes } from './invitations.js'
import { registerNetworkAppRoutes } from './network-apps.js'
import { registerPostRoutes } from './posts.js'
import { registerQueueRoutes } from './queue.js'
import { openToVisitors, registerSignInGuard } from './sign-in-guard.js'
import { registerAssetRoutes } from './ui/assets.js'
import {
  FORM_BODY_LIMIT,
  guardBody,
  isImportUploadRoute,
  isUploadRoute,
  ReceivedUpload,
  receiveUpload,
  UPLOAD_LIMIT,
  unsupportedType,
} from './upload-body.js'
import { registerWebhookPages } from './webhooks.js'
import { registerWorkspaceRoutes } from './workspace.js'

/**
 * The dashboard, in its own plugin scope. Only this scope reads `application/x-www-form-urlencoded` bodies
 * (the API keeps refusing anything but JSON with 415), errors here are HTML pages, and the API-key hook of
 * `/api/tools` does not apply. Every route here is for a signed-in person unless its options say it is open
 * to visitors (the sign-in guard, sign-in-guard.ts).
 */
export function registerDashboard(server: FastifyInstance, app: AppContext, runner: ToolRunner) {
  server.register(async (scope) => {
    serveScopeWith(scope, dashboardHeaders())
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) =>
        done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8'))),
    )
    // Compose's upload sends a file's bytes as they are: streamed to a temporary file, never held in memory,
    // and only ever on /compose/upload (see src/interfaces/dashboard/upload-body.ts).
    scope.addContentTypeParser(UPLOAD_TYPES, (request, payload, done) => {
      if (!isUploadRoute(request)) return done(unsupportedType(), undefined)
      receiveUpload(payload, UPLOAD_LIMIT).then(
        (upload) => done(null, upload),
        (error: Error) => done(error, undefined),
      )
    })
    scope.addHook('onRequest', (request, reply) => guardBody(app, request, reply))
    registerSignInGuard(scope, app)
    scope.addHook('onResponse', async (request) => {
      if (request.body instanceof ReceivedUpload) await request.body.dispose()
    })
    // The import page's upload sends the CSV file's bytes as they are (see src/interfaces/dashboard/import.ts).
    scope.addContentTypeParser(
      CSV_TYPES,
      { parseAs: 'buffer', bodyLimit: MAX_IMPORT_BYTES },
      (request, body, done) =>
        isImportUploadRoute(request) ? done(null, body) : done(unsupportedType(), undefined),
    )
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const status =
        error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
      if (status === 500) request.log.error({ err: error }, 'dashboard request failed')
      const message =
        status === 415
          ? 'This address takes an HTML form (application/x-www-form-urlencoded).'
          : status === 413
            ? 'The form is too large.'
            : status < 500
              ? 'The request could not be read.'
              : 'Something went wrong on our side; nothing was changed. Try again.'
      return sendHtml(
        reply,
        status,
        problemPage(status < 500 ? 'Bad request' : 'Something went wrong', message),
      )
    })
    // Browsers ask for an icon on every page; Herald has none, and says so without an error.
    scope.get('/favicon.ico', openToVisitors, async (_request, reply) =>
      reply.code(204).header('cache-control', 'public, max-age=86400').send(),
    )
    registerAssetRoutes(scope)
    const claimed = createClaimCheck(app.store.db)
    registerAuthRoutes(scope, app, claimed)
    registerSetupRoutes(scope, app, claimed)
    registerOnboardingRoutes(scope, app)
    registerChannelRoutes(scope, app, runner)
    registerIntegrationRoutes(scope, app)
    registerPostRoutes(scope, app, runner)
    registerComposeRoutes(scope, app, runner)
    registerCalendarRoutes(scope, app, runner)
    registerAnalyticsRoutes(scope, app, runner)
    registerWorkspaceRoutes(scope, app)
    registerWebhookPages(scope, app)
    registerNetworkAppRoutes(scope, app)
    registerInvitationRoutes(scope, app)
    registerQueueRoutes(scope, app, runner)
    registerImportRoutes(scope, app, runner)
    registerConnectRoutes(scope, app)
    if (app.oauth) registerConsentRoutes(scope, app, app.oauth)
  })
}
