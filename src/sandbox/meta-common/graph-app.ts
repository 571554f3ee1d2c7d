import type { FastifyError, FastifyInstance } from 'fastify'

/**
 * What every Meta simulator (Facebook and Instagram, Threads) sets up before its routes: form and JSON
 * bodies parsed as Meta reads them (a form body as `URLSearchParams`, an empty JSON body as nothing,
 * anything else left unread), and every failure answered in Meta's error envelope (a client error as
 * code 100, anything else as code 1 with Meta's words for an unknown error).
 */
export function prepareMetaApp(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_request, text, done) =>
      done(null, new URLSearchParams(typeof text === 'string' ? text : text.toString('utf8'))),
  )
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: 1024 * 1024 },
    (_request, text, done) => {
      try {
        const source = typeof text === 'string' ? text : text.toString('utf8')
        done(null, source.trim() === '' ? undefined : JSON.parse(source))
      } catch {
        done(Object.assign(new Error('Parse Error'), { statusCode: 400 }), undefined)
      }
    },
  )
  app.addContentTypeParser('*', (_request, _payload, done) => done(null))
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    return reply.code(status).send({
      error: {
        message: status === 500 ? 'An unknown error has occurred.' : error.message,
        type: 'OAuthException',
        code: status === 500 ? 1 : 100,
        fbtrace_id: 'SbxError',
      },
    })
  })
}
