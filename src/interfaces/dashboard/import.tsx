import type { FastifyInstance } from 'fastify'
import { findingInWords } from '../../core/finding-words.js'
import type { AppContext } from '../../modules/app-context.js'
import {
  type ImportReport,
  type ImportRowReport,
  importContextFor,
  importCsv,
  MAX_IMPORT_ROWS,
  type RowStatus,
} from '../../modules/publishing/csv-import.js'
import { findUpload, saveUpload } from '../../platform/db/statements/imports.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import { firstValue } from '../../platform/form.js'
import type { ToolRunner } from '../tools/runner.js'
import { actorOf, callerOf } from './caller.js'
import { page, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { scriptUpload, signedInRoutes } from './sign-in-guard.js'
import { assetUrl } from './ui/assets.js'
import type { UiIcon } from './ui/icons.js'
import { CsrfField, Icon, Messages, TableCard } from './ui/parts.js'

/**
 * Bulk import: upload a CSV, see every row checked (blockers, warnings, cost) before anything is created,
 * then import the rows that passed and see what happened to each. The file waits between the two steps
 * (kept a day, visible to the person who uploaded it only). The rows go through preflight_post and
 * create_post as the signed-in person (src/modules/publishing/csv-import.ts).
 */

export const CSV_TYPES = ['text/csv', 'application/vnd.ms-excel', 'text/plain']

const EXAMPLE = `content,profiles,date,time,timezone,media URLs,first comment,queue
"Spring is here, and so are we",linkedin:acme; twitter,2030-04-01,09:00,Europe/Berlin,,,
New post from the queue,bluesky,,,,https://example.com/photo.jpg,,yes`

function uploadPage(who: SignedIn, problem?: string) {
  const csrf = who.session.csrfToken
  return page(
    'Import',
    <>
      <div class="page-head">
        <h1>Import posts from a CSV file</h1>
      </div>
      <Messages problem={problem} />
      <section class="card" aria-labelledby="csv-upload-title">
        <h2 id="csv-upload-title">Upload a file</h2>
        <form id="csv-upload" method="post" action="/import">
          <CsrfField token={csrf} />
          <label>
            CSV file <input type="file" id="csv-file" accept=".csv,text/csv" data-csrf={csrf} />
          </label>
          <p id="csv-status" class="muted" role="status" />
          <details>
            <summary>Or paste the CSV</summary>
            <label>
              CSV text <textarea class="code" name="csv" rows={8} />
            </label>
            <button type="submit" class="primary">
              Check the pasted rows
            </button>
          </details>
        </form>
      </section>
      <FileFormat />
      <script type="module" src={assetUrl('csv-import.js')} />
    </>,
    { signedIn: account(who) },
  )
}

/** What the file holds, in a manager's words, with an example. */
const FileFormat = () => (
  <section class="card" aria-labelledby="csv-format">
    <h2 id="csv-format">What the file holds</h2>
    <p>
      A row per post (a row to several profiles makes a post for each), up to {MAX_IMPORT_ROWS} rows. Every
      row is checked first and shown with its blockers, warnings and cost; nothing is created until you import
      the rows that passed. A row imported once is never created again, so importing the same file twice
      creates nothing new.
    </p>
    <p>
      Columns (the first row names them, in any order): <code>content</code>, <code>profiles</code> (a network
      such as <code>linkedin</code> for every profile on it, or <code>network:username</code>; several
      separated by <code>;</code>), <code>date</code> (YYYY-MM-DD), <code>time</code> (HH:MM),{' '}
      <code>timezone</code> (IANA, default UTC), <code>media URLs</code> (separated by spaces),{' '}
      <code>first comment</code>, and <code>queue</code> (<code>yes</code> instead of a date: the profile's
      next free posting time).
    </p>
    {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the focusable block a keyboard scrolls is named for it. */}
    <pre class="example" tabindex={0} aria-label="An example file">
      {EXAMPLE}
    </pre>
  </section>
)

const RESULTS: Record<RowStatus, { tone: string; icon: UiIcon; words: string }> = {
  ready: { tone: 'info', icon: 'circle-check', words: 'Ready' },
  blocked: { tone: 'bad', icon: 'circle-x', words: 'Blocked' },
  repeat: { tone: '', icon: 'minus', words: 'Repeat' },
  created: { tone: 'ok', icon: 'circle-check', words: 'Created' },
  'waiting for approval': { tone: 'warn', icon: 'hourglass', words: 'Waiting for approval' },
  'already imported': { tone: '', icon: 'minus', words: 'Imported before' },
  failed: { tone: 'bad', icon: 'circle-alert', words: 'Failed' },
}

/** A row's result as a chip: an icon and the words. */
function ResultChip({ status }: { status: RowStatus }) {
  const r = RESULTS[status]
  return (
    <span class={`chip ${r.tone}`}>
      <Icon name={r.icon} />
      {r.words}
    </span>
  )
}

/** The posts a row made, each a link named by the profile it is for (not by its id). */
function PostLinks({ r }: { r: ImportRowReport }) {
  if (r.postIds.length === 0) return null
  const links = r.postIds.map((id, i) => (
    <a href={`/posts/${id}`}>
      {r.postIds.length === r.profiles.length ? `Post to ${r.profiles[i]}` : `Post ${i + 1}`}
    </a>
  ))
  return <p class="row-posts">{links.flatMap((link, i) => (i ? [' · ', link] : [link]))}</p>
}

/**
 * A check's message without the tool's field name in front (`firstComment: …`): the row already names its
 * column in the file's words.
 */
const withoutFieldName = (message: string) => message.replace(/^[a-z]+(?:[A-Z][a-z]*)+(?:\[\d+\])?: /, '')

function RowLine({ r }: { r: ImportRowReport }) {
  const problems = [
    ...r.blockers.map((b) =>
      b.column ? `${b.column}: ${findingInWords(withoutFieldName(b.message))}` : findingInWords(b.message),
    ),
    ...(r.note ? [r.note] : []),
  ]
  const cls =
    r.status === 'blocked' || r.status === 'failed' ? 'blocked' : r.status === 'created' ? 'done' : ''
  return (
    <tr class={cls}>
      <td>{r.row}</td>
      <td>
        <ResultChip status={r.status} />
      </td>
      <td class="copy">{r.content}</td>
      <td>{r.profiles.join(', ')}</td>
      <td>{r.slot}</td>
      <td>{r.cost}</td>
      <td>
        {problems.length || r.warnings.length ? (
          <ul class="problems">
            {problems.map((p) => (
              <li>{p}</li>
            ))}
            {r.warnings.map((w) => (
              <li class="muted">{w}</li>
            ))}
          </ul>
        ) : null}
        <PostLinks r={r} />
      </td>
    </tr>
  )
}

const RowsTable = ({ rows }: { rows: ImportRowReport[] }) => (
  <TableCard label="Rows of the file">
    <table class="import-rows">
      <thead>
        <tr>
          <th scope="col">Row</th>
          <th scope="col">Result</th>
          <th scope="col">Content</th>
          <th scope="col">Profiles</th>
          <th scope="col">When</th>
          <th scope="col">Credits</th>
          <th scope="col">Blockers, warnings, posts</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <RowLine r={r} />
        ))}
      </tbody>
    </table>
  </TableCard>
)

/** What the check or the import came to, in counts. */
function Summary({ report }: { report: ImportReport }) {
  const s = report.summary
  if (report.dryRun)
    return (
      <ul class="summary">
        <li>
          <strong>{s.ready}</strong> of {s.rows} rows are ready ({s.cost} credits; the workspace has{' '}
          {s.balance})
        </li>
        <li>
          <strong>{s.blocked}</strong> blocked: fix them in the file and upload it again
        </li>
        {s.repeats ? <li>{s.repeats} repeat an earlier row and are imported once</li> : null}
        {s.alreadyImported ? (
          <li>{s.alreadyImported} were imported before and are not created again</li>
        ) : null}
      </ul>
    )
  return (
    <ul class="summary">
      <li>
        <strong>{s.created}</strong> created
      </li>
      <li>{s.blocked} blocked</li>
      <li>{s.alreadyImported} imported before</li>
      <li>{s.failed} failed</li>
      {s.repeats ? <li>{s.repeats} repeated rows</li> : null}
    </ul>
  )
}

/** After a check, import the ready rows; after an import, where to go next. */
function NextStep({ who, uploadId, report }: { who: SignedIn; uploadId: string; report: ImportReport }) {
  const ready = report.summary.ready
  if (report.dryRun && ready > 0)
    return (
      <form method="post" action={`/import/${uploadId}/run`}>
        <CsrfField token={who.session.csrfToken} />
        <button type="submit" class="primary">
          Import the {ready} ready row{ready === 1 ? '' : 's'}
        </button>
      </form>
    )
  if (report.dryRun) return <p class="muted">No row is ready to import.</p>
  return (
    <p class="actions">
      <a class="button primary" href="/posts">
        See the posts
      </a>{' '}
      <a class="button" href="/import">
        Import another file
      </a>
    </p>
  )
}

function reportPage(who: SignedIn, uploadId: string, fileName: string, report: ImportReport) {
  const title = report.dryRun ? `Check of ${fileName}` : `Import of ${fileName}`
  // Rows that need attention first; the rows that are fine (ready or created) folded below them.
  const fine = (r: ImportRowReport) =>
    (r.status === 'ready' || r.status === 'created' || r.status === 'waiting for approval') &&
    r.warnings.length === 0
  const attention = report.rows.filter((r) => !fine(r))
  const rest = report.rows.filter(fine)
  return page(
    title,
    <>
      <div class="page-head">
        <h1>{title}</h1>
      </div>
      <section class="card">
        <Summary report={report} />
        <NextStep who={who} uploadId={uploadId} report={report} />
      </section>
      {attention.length ? (
        <>
          <h2>Rows to look at ({attention.length})</h2>
          <RowsTable rows={attention} />
        </>
      ) : null}
      {rest.length ? (
        <details open={attention.length === 0}>
          <summary>
            {report.dryRun ? 'Ready' : 'Created'}: {rest.length} row{rest.length === 1 ? '' : 's'}
          </summary>
          <RowsTable rows={rest} />
        </details>
      ) : null}
    </>,
    { signedIn: account(who) },
  )
}

export function registerImportRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const routes = signedInRoutes(scope)
  routes.get('/import', async (_request, reply, who) => {
    return sendHtml(reply, 200, uploadPage(who))
  })

  const keep = (who: SignedIn, fileName: string, bytes: Buffer) =>
    saveUpload(
      app.store.db,
      { workspaceId: who.workspace.id, userId: who.user.id, fileName, body: bytes.toString('base64') },
      app.clock.now(),
    )

  // The file's bytes as the body (the page's script); the CSRF token travels in the query.
  routes.post<{ Querystring: { name?: string } }>(
    '/import/upload',
    scriptUpload,
    async (request, reply, who) => {
      const bytes = request.body
      if (!Buffer.isBuffer(bytes) || bytes.length === 0)
        return reply.code(400).send({ message: 'The file is empty.' })
      const name =
        (firstValue(request.query.name) ?? 'import.csv').replace(/[^\p{L}\p{N}._ -]+/gu, '-').slice(-120) ||
        'import.csv'
      const id = await keep(who, name, bytes)
      return reply.code(201).send({ url: `/import/${id}` })
    },
  )

  // Without the script: the pasted CSV, as a form.
  routes.post('/import', async (request, reply, who) => {
    const text = field(request, 'csv')
    if (text.trim() === '')
      return sendHtml(reply, 400, uploadPage(who, 'Choose a file or paste the CSV first.'))
    const id = await keep(who, 'pasted.csv', Buffer.from(text, 'utf8'))
    return reply.redirect(`/import/${id}`, 303)
  })

  const runImport = async (
    reply: Parameters<typeof sendHtml>[0],
    who: SignedIn,
    id: string,
    dryRun: boolean,
  ) => {
    const upload = await findUpload(app.store.db, id, who.workspace.id, who.user.id)
    if (!upload)
      return sendHtml(
        reply,
        404,
        uploadPage(who, 'That upload is gone (uploads are kept a day); upload the file again.'),
      )
    try {
      const ctx = await importContextFor(app, runner, callerOf(who), actorOf(who))
      const report = await importCsv(ctx, Buffer.from(upload.body, 'base64'), { dryRun })
      return sendHtml(reply, 200, reportPage(who, id, upload.file_name, report))
    } catch (error) {
      const appError = toAppError(error)
      if (appError.code === 'internal') throw error
      return sendHtml(
        reply,
        httpStatusFor(appError.code),
        uploadPage(who, `${upload.file_name}: ${appError.message}`),
      )
    }
  }

  routes.get<{ Params: { id: string } }>('/import/:id', async (request, reply, who) => {
    return runImport(reply, who, request.params.id, true)
  })

  routes.post<{ Params: { id: string } }>('/import/:id/run', async (request, reply, who) => {
    return runImport(reply, who, request.params.id, false)
  })
}

export { MAX_IMPORT_BYTES } from '../../modules/publishing/csv-import.js'
