// The suite's own test origin, bound to 127.0.0.1 on a free port (its server.mjs listens on every
// interface on a fixed port). The handlers are the suite's; only the listener is ours.
//
//   node origin.mjs SUITE_DIR      prints "origin listening on 127.0.0.1:PORT"
import http from 'node:http'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const suite = process.argv[2]
const handler = async name =>
  (await import(pathToFileURL(path.join(suite, 'test-engine/server', name)).href)).default
const routes = {
  config: await handler('handle-config.mjs'),
  test: await handler('handle-test.mjs'),
  state: await handler('handle-state.mjs')
}
const serveFile = await handler('handle-file.mjs')

const server = http.createServer((request, response) => {
  const url = new URL(request.url, 'http://127.0.0.1/')
  const segments = url.pathname.split('/').slice(1)
  const route = routes[segments.shift()]
  if (route) route(segments, request, response)
  else serveFile(url, request, response)
})
server.listen(0, '127.0.0.1', () => {
  console.log(`origin listening on 127.0.0.1:${server.address().port}`)
})
