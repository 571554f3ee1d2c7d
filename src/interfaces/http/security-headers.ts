import helmet from '@fastify/helmet'
import type { FastifyInstance, FastifyReply } from 'fastify'

/** What a route asks of helmet beyond the baseline (its CSP, a header it goes without): helmet's options. */
export type SecurityHeaders = NonNullable<Parameters<FastifyReply['helmet']>[0]>

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * This route's headers, merged over {@link BASELINE} by @fastify/helmet when the request arrives. Set in
     * `config` rather than as the route's `helmet` option, which helmet only reads from routes declared
     * after it has loaded.
     */
    helmet?: SecurityHeaders
  }
}

/**
 * Every response: `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` (a connect callback's or
 * an OAuth redirect's URL carries an authorization code) and `X-Frame-Options: DENY` (nothing of Herald is
 * meant to be framed). A Content-Security-Policy is a page's own (the dashboard's, a hosted file's), set by
 * the routes that serve them. Helmet's other defaults stay off: HSTS belongs to the TLS proxy in front of
 * Herald (docs/security.md), and the cross-origin policies (COOP, COEP, CORP) would stop a browser on
 * another site from showing a hosted image or finishing an OAuth sign-in in a popup.
 */
export const BASELINE: SecurityHeaders = {
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: { action: 'deny' },
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
}

/** Registers @fastify/helmet once, for every route; register it before any route. */
export function registerSecurityHeaders(server: FastifyInstance): void {
  server.register(helmet, { global: true, ...BASELINE })
}

/**
 * Serves every route registered in `scope` from now on with `headers` (a surface's pages and their CSP),
 * unless the route names its own in `config.helmet`.
 */
export function serveScopeWith(scope: FastifyInstance, headers: SecurityHeaders): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, helmet: route.config?.helmet ?? headers }
  })
}
